"""Participation bias (`worker.engine.bias`): hand-computed cases, and the runs whose
values the manual derives (Example 1, a tight deadline on the stragglers' devices)."""

from collections.abc import Mapping

import numpy as np
import pytest

from worker.engine import ListSink, simulate
from worker.engine.bias import QUANTILES, first_bin, split, summary_values, tv_distance
from worker.presets import PRESETS


def test_tv_by_hand() -> None:
    # α = (½, ½), p̄ = (¾, ¼): ½(¼ + ¼) = ¼ (FedAvg on Example 1: client 0 there 30 of
    # every 40 rounds, alone, so it makes 30 of 40 rounds' aggregates)
    assert tv_distance(np.array([0.5, 0.5]), np.array([0.75, 0.25])) == pytest.approx(0.25)


def test_bounds() -> None:
    alpha = np.array([0.2, 0.3, 0.5])
    assert tv_distance(alpha, alpha) == 0.0
    # the aggregate all on a client that holds no data: the whole mass moved
    assert tv_distance(np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.0, 1.0])) == 1.0


def test_one_client_has_no_bias() -> None:
    v = summary_values(np.array([1.0]), np.array([1.0]), np.array([0.3]))
    assert v == {"participation_tv": 0.0, "least_available_gap": None, "slowest_gap": None}


def test_constant_availability_still_shows_the_bias() -> None:
    # every client always there, but the aggregate all on the first: TV = ¾, where a
    # correlation with availability is undefined
    alpha, share = np.full(4, 0.25), np.array([1.0, 0.0, 0.0, 0.0])
    v = summary_values(alpha, share, np.ones(4))
    assert v["participation_tv"] == pytest.approx(0.75)
    assert v["least_available_gap"] is None  # nothing to split by: all alike


def test_two_clients_are_told_apart() -> None:
    # a correlation over 2 clients is ±1 whatever the weights; TV is not
    alpha, available = np.array([0.5, 0.5]), np.array([0.75, 0.25])
    biased = summary_values(alpha, np.array([0.75, 0.25]), available)
    fair = summary_values(alpha, np.array([0.5, 0.5]), available)
    assert (biased["participation_tv"], fair["participation_tv"]) == (0.25, 0.0)
    # the least available fifth is client 1 alone: ¼ of the aggregate for ½ of the data
    assert biased["least_available_gap"] == pytest.approx(-0.25)
    assert fair["least_available_gap"] == 0.0


def test_a_client_never_available_counts_its_whole_data_share() -> None:
    alpha = np.array([0.4, 0.4, 0.2])
    share = np.array([0.5, 0.5, 0.0])
    v = summary_values(alpha, share, np.array([1.0, 0.5, 0.0]))
    assert v["participation_tv"] == pytest.approx(0.2)
    assert v["least_available_gap"] == pytest.approx(-0.2)


def test_nothing_aggregated_yet_is_no_value() -> None:
    v = summary_values(np.full(3, 1 / 3), None, np.zeros(3), np.ones(3))
    assert set(v.values()) == {None}


def test_quantile_split_of_a_small_population_by_hand() -> None:
    # 10 clients, 2 a bin; device times 10..1 s (client 0 the slowest); data shares of
    # the two slowest 0.1 + 0.1, aggregate 0.01 + 0.02: gap −0.17
    work = np.arange(10, 0, -1, dtype=float)
    alpha = np.full(10, 0.1)
    share = np.array([0.01, 0.02, 0.07, 0.1, 0.1, 0.1, 0.15, 0.15, 0.15, 0.15])
    bins = split(work, alpha, share, descending=True)
    assert bins is not None and len(bins) == QUANTILES
    assert [b.clients for b in bins] == [2] * 5
    assert (bins[0].key_low, bins[0].key_high) == (9.0, 10.0)
    assert [round(b.gap, 9) for b in bins] == [-0.17, -0.03, 0.0, 0.1, 0.1]
    assert sum(b.gap for b in bins) == pytest.approx(0.0)
    v = summary_values(alpha, share, np.linspace(0, 1, 10), work)
    assert v["slowest_gap"] == pytest.approx(-0.17)
    assert v["least_available_gap"] == pytest.approx(-0.17)  # the same two clients


def test_a_bin_holds_at_least_one_client_below_five() -> None:
    bins = split(np.array([3.0, 1.0, 2.0]), np.full(3, 1 / 3), np.array([0.5, 0.2, 0.3]))
    assert bins is not None
    assert [b.clients for b in bins] == [1, 1, 1]  # ranks 0, 1, 2 in bins 0, 1, 3
    assert bins[0].gap == pytest.approx(0.2 - 1 / 3)  # client 1, the lowest key


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 1000])
@pytest.mark.parametrize("descending", [False, True])
def test_the_first_bin_by_partition_is_the_sorted_splits(n: int, descending: bool) -> None:
    # keys with many ties (the partition must take the tied clients of lowest id)
    rng = np.random.default_rng(n)
    key = rng.integers(0, 4, n).astype(float)
    key[0] = 9.0 if n > 1 else key[0]
    alpha, share = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
    bins = split(key, alpha, share, descending)
    first = first_bin(key, alpha, share, descending)
    if bins is None:
        assert first is None
    else:
        assert first is not None
        assert first.clients == bins[0].clients
        assert (first.key_low, first.key_high) == (bins[0].key_low, bins[0].key_high)
        assert first.gap == pytest.approx(bins[0].gap, abs=1e-12)


def test_a_key_that_is_not_finite_splits_nothing() -> None:
    assert split(np.array([1.0, np.inf]), np.full(2, 0.5), np.full(2, 0.5)) is None


@pytest.mark.parametrize(("algorithm", "tv"), [("fedavg", 0.25), ("fedlaavg", 15 / 400)])
def test_example1(algorithm: str, tv: float) -> None:
    # 400 rounds, 10 periods of 40. FedAvg: p̄ = (¾, ¼). FedLaAvg keeps both clients'
    # latest updates and weighs each ½ from round 30, where client 1 is first seen:
    # p̄_0 = (30 + 370 · ½) / 400 = ½ + 15/400, TV = 15/400 (15/4000 over the preset's
    # 4000 rounds: → 0)
    config = PRESETS["example1"].run_config([f"algorithm.name={algorithm}", "rounds=400"])
    sink = ListSink()
    s = simulate(config, sink).values
    assert s["participation_tv"] == pytest.approx(tv, abs=1e-6)
    # the round metric that follows it as the run goes ends on it
    assert sink.records[-1].metrics["tv_bias_avg"] == pytest.approx(s["participation_tv"])
    assert s["least_available_gap"] == pytest.approx(-tv, abs=1e-6)
    assert s["slowest_gap"] is None  # no system model


@pytest.mark.slow
def test_a_deadline_leaves_the_slowest_devices_out() -> None:
    # the stragglers preset (devices of lognormal speed, σ = 1; every client always there,
    # so there is no availability to split by), 40 rounds: FedAvg, and FedAvg with the
    # preset's deadline and over-commitment, which the slowest devices miss. Their fifth
    # holds about 17 % of the data; with the deadline it makes next to none of the
    # aggregate (−17.2 pp), without it about its share (−2.3 pp: selection's noise)
    preset = PRESETS["stragglers"]
    methods = {m.name: m.assignments() for m in preset.compare}

    def run(method: str) -> Mapping[str, float | int | None]:
        sets = [f"{k}={v}" for k, v in methods[method].items()]
        return simulate(preset.run_config(["rounds=40", "eval.every=40", *sets]), ListSink()).values

    free, tight = run("fedavg"), run("fedavg-deadline")

    assert free["least_available_gap"] is None and tight["least_available_gap"] is None
    free_gap, tight_gap = free["slowest_gap"], tight["slowest_gap"]
    assert free_gap is not None and tight_gap is not None
    assert abs(free_gap) < 0.05
    assert tight_gap < -0.15
    free_tv, tight_tv = free["participation_tv"], tight["participation_tv"]
    assert free_tv is not None and tight_tv is not None
    assert tight_tv > free_tv + 0.1
