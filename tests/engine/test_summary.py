"""The run summary: hand-computed values, plug-in averages, checkpoints (today's and the
earlier format), and the engine's summary equal to `summarise` over its records."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import torch

from tests.engine.sinks import CheckpointsSink
from tests.metrics_probe import metrics_added
from worker.engine import ListSink, build_config, checkpoint, metrics, simulate
from worker.engine.bias import aggregate_share, summary_values
from worker.engine.data import load_data
from worker.engine.loop import target_weights
from worker.engine.metrics import MetricSpec
from worker.engine.process_age import process_age_s
from worker.engine.summary import SummaryTracker, std_second_half, summarise, summary_inputs
from worker.engine.tracker import Tracker
from worker.reproduction.figures import Curve, figures

ROUNDS: list[tuple[int, dict[str, float]]] = [
    (0, {"n_selected": 2, "test_acc": 0.2, "test_loss": 0.9, "param": 1.0, "opt_gap": 1.0}),
    (1, {"n_selected": 3, "param": 0.5, "opt_gap": 0.25}),
    (
        2,
        {
            "n_selected": 1,
            "sim_time_s": 7.5,
            "round_time_s": 2.5,
            "update_staleness_mean": 1.5,
            "dropped_updates": 1.0,
            "test_acc": 0.7,
            "test_loss": 0.4,
            "client_acc_mean": 0.6,
            "client_acc_var": 0.01,
            "client_acc_worst10": 0.3,
            "client_acc_best10": 0.9,
        },
    ),
    (
        3,
        {
            "n_selected": 2,
            "test_acc": 0.5,
            "test_loss": 0.6,
            "val_acc": 0.55,
            "val_loss": 0.65,
            "param": -0.5,
            "opt_gap": 0.25,
            "sim_time_s": 9.0,
            "round_time_s": 1.5,
            "bytes_down_total": 800.0,
            "bytes_up_total": 300.0,
            "epsilon_assumed": 2.0,
            "epsilon_client_max": 5.0,
            "epsilon_client_median": 3.0,
        },
    ),
]


@pytest.fixture
def plugin_metric() -> Iterator[str]:
    with metrics_added(MetricSpec("excluded", "clients excluded", panel="algorithm", summary=True)):
        yield "excluded"


def test_huge_finite_values_give_finite_summaries(plugin_metric: str) -> None:
    # Before: OverflowError in the std of the second half (squares past 1.8e308), and an
    # fsum overflow in the time-average.
    big = 1e300
    values = [big, -big, big, -big]
    metric = {plugin_metric: 1.5e308, "n_selected": 1}
    rounds = [(t, {"test_acc": v, **metric}) for t, v in enumerate(values)]
    s = summarise(rounds, rounds_done=4, wall_s=1e-310, target_acc=None)

    # rounds completed 2..4 (≥ 4 / 2): population std of (-1e300, 1e300, -1e300)
    assert s["std_test_acc_second_half"] == pytest.approx(big * math.sqrt(8) / 3)
    assert s["time_avg_test_acc"] == 0.0 and s["best_test_acc"] == big
    top = summarise([(t, {"test_acc": 1.5e308}) for t in range(4)], 4, 1.0, None)
    assert top["time_avg_test_acc"] == 1.5e308 and top["std_test_acc_second_half"] == 0.0
    # A sum past the float range (the average of the plug-in's metric) and a rate over a
    # near-zero time are no values: JSON and the database hold no infinity.
    assert s[metrics.summary_name(plugin_metric)] is None
    assert s["client_updates_per_s"] is None


def test_summary_by_hand() -> None:
    s = summarise(ROUNDS, rounds_done=4, wall_s=2.0, target_acc=0.6)

    assert (s["best_test_acc"], s["final_test_acc"]) == (0.7, 0.5)
    assert s["time_avg_test_acc"] == pytest.approx(1.4 / 3)
    assert s["std_test_acc_second_half"] == pytest.approx(0.1)  # population std of (0.7, 0.5)
    assert s["rounds_to_target"] == 3  # reached at round 2, the third
    assert s["final_test_loss"] == 0.6
    assert (s["final_param"], s["final_opt_gap"]) == (-0.5, 0.25)
    assert (
        s["final_epsilon_assumed"],
        s["final_epsilon_client_max"],
        s["final_epsilon_client_median"],
    ) == (2.0, 5.0, 3.0)
    assert s["final_client_acc_mean"] == 0.6 and s["final_client_acc_var"] == 0.01
    assert (s["final_client_acc_worst10"], s["final_client_acc_best10"]) == (0.3, 0.9)
    assert (s["rounds_done"], s["wall_s"]) == (4, 2.0)
    assert s["client_updates_per_s"] == pytest.approx(8 / 2.0)  # 2 + 3 + 1 + 2 updates
    assert s["time_to_target_s"] == 7.5  # round 2's simulated time
    assert s["sim_time_total_s"] == 9.0 and s["total_bytes"] == 1100.0
    assert s["round_time_s_avg"] == 2.0
    assert (s["final_val_acc"], s["final_val_loss"]) == (0.55, 0.65)


def test_no_clock_no_simulated_time() -> None:
    """A run without a system model records no simulated time: its summary has none."""
    timeless = [(t, {k: v for k, v in m.items() if "time_s" not in k}) for t, m in ROUNDS]
    s = summarise(timeless, rounds_done=4, wall_s=2.0, target_acc=0.6)

    assert s["rounds_to_target"] == 3
    assert s["time_to_target_s"] is None and s["sim_time_total_s"] is None


def test_every_summary_value_of_the_catalogue_in_its_order() -> None:
    s = summarise(
        ROUNDS,
        rounds_done=4,
        wall_s=2.0,
        target_acc=0.6,
        startup_s=1.5,
        period=2,
        bias={"participation_tv": 0.5, "least_available_gap": 0.1, "slowest_gap": -0.2},
    )

    assert list(s) == [spec.name for spec in metrics.catalogue() if spec.kind == "summary"]
    assert all(v is not None for v in s.values())


def test_x_averaged_over_the_last_whole_period() -> None:
    def average(period: int | None) -> float | None:
        value = summarise(ROUNDS, 4, 2.0, None, period=period)["period_avg_param"]
        assert value is None or isinstance(value, float)
        return value

    assert average(2) == -0.5  # rounds 2 and 3: x recorded in round 3 only
    assert average(4) == pytest.approx((1.0 + 0.5 - 0.5) / 3)
    assert average(5) is None  # 4 rounds recorded: not a whole period yet
    assert average(None) is None  # availability that does not repeat


def test_the_period_average_survives_a_checkpoint() -> None:
    first = SummaryTracker(None, period=4)
    for t, values in ROUNDS[:2]:
        first.observe(t, values)
    resumed = SummaryTracker(None, period=4)
    resumed.load_state_dict(first.state_dict())
    for t, values in ROUNDS[2:]:
        resumed.observe(t, values)

    assert resumed.summary(4, 2.0) == summarise(ROUNDS, 4, 2.0, None, period=4)


def test_nothing_recorded_gives_none() -> None:
    s = summarise([], rounds_done=0, wall_s=0.0, target_acc=None)

    assert s["best_test_acc"] is None and s["final_param"] is None
    assert (s["rounds_to_target"], s["client_updates_per_s"]) == (None, 0.0)


def test_the_summary_reads_its_named_inputs_and_each_averaged_metric(plugin_metric: str) -> None:
    assert summary_inputs()[:3] == ("test_acc", "initial_test_acc", "n_selected")
    assert {"final_test_loss", "test_loss", plugin_metric} & set(summary_inputs()) == {
        "test_loss",
        plugin_metric,
    }


def test_a_registered_metric_is_averaged_over_the_rounds_that_recorded_it(
    plugin_metric: str,
) -> None:
    rounds = [(0, {plugin_metric: 3.0}), (1, {}), (2, {plugin_metric: 1.0})]

    s = summarise(rounds, rounds_done=3, wall_s=1.0, target_acc=None)

    assert s["excluded_avg"] == 2.0
    assert summarise([], 0, 0.0, None)["excluded_avg"] is None


def test_state_round_trip_and_the_earlier_checkpoint_format() -> None:
    first = SummaryTracker(0.6)
    for t, values in ROUNDS[:2]:
        first.observe(t, values)
    resumed = SummaryTracker(0.6)
    resumed.load_state_dict(first.state_dict())
    # What the engine's tracker stored before: accuracies, last loss, update count.
    earlier = Tracker(torch.full((2,), 0.5), 0.6)
    legacy = {
        "last": torch.tensor([1, 0]),
        "p_sum": torch.zeros(2, dtype=torch.float64),
        "p_rounds": 0,
        "acc": [(0, 0.2)],
        "last_loss": 0.9,
        "updates": 5,
    }
    fresh = {"tracker": earlier.state_dict()}  # a version-1 checkpoint, upgraded
    upgraded = checkpoint.upgrade({"version": 1, "tracker": legacy}, lambda: fresh, "fedavg")
    earlier.load_state_dict(upgraded["tracker"])
    for t, values in ROUNDS[2:]:
        resumed.observe(t, values)
        earlier.observe(t, values)

    expected = summarise(ROUNDS, rounds_done=4, wall_s=2.0, target_acc=0.6)
    assert resumed.summary(4, 2.0) == expected
    from_legacy = earlier.summary(4, 2.0, stopped=False).to_dict()
    # The earlier format kept no last param: only what was recorded after the resume.
    assert {k: from_legacy[k] for k in expected} == expected


def engine_run(*sets: str) -> tuple[ListSink, dict[str, Any], float | None]:
    config = build_config({"rounds": 7, "eval": {"every": 2, "client_every": 3}}, list(sets))
    sink = ListSink()
    summary = simulate(config, sink).to_dict()
    return sink, summary, config.eval.target_acc


@pytest.mark.parametrize(
    "sets",
    [
        ["algorithm.name=fedavg", "availability.kind=markov", "eval.target_acc=0.5"],
        [
            "data.dataset=mean_estimation",
            "data.n_clients=2",
            "model.name=scalar",
            "algorithm.participation=1",
        ],
    ],
)
def test_engine_summary_is_summarise_over_its_records(sets: list[str]) -> None:
    sink, summary, target = engine_run(*sets)

    rounds = [(r.round, r.metrics) for r in sink.records]
    config = build_config({}, list(sets))
    n = config.data.n_clients
    available = np.zeros(n)
    for r in sink.records:
        available[r.available] += 1
    alpha = target_weights(config, load_data(config.data, config.seed)).numpy()
    at = np.repeat(np.arange(len(rounds)), [len(r.weights.ids) for r in sink.records])
    ids = np.concatenate([r.weights.ids for r in sink.records])
    values = np.concatenate([r.weights.values for r in sink.records])
    share = aggregate_share(n, len(rounds), at, ids, values)
    bias = summary_values(alpha, share, available / len(rounds))
    expected = summarise(
        rounds, len(rounds), summary["wall_s"], target, summary["startup_s"], None, bias
    )

    assert {k: summary[k] for k in expected} == expected
    read = [(t, {k: v for k, v in m.items() if k in summary_inputs()}) for t, m in rounds]
    startup = summary["startup_s"]
    assert summarise(read, len(rounds), summary["wall_s"], target, startup, None, bias) == expected
    assert summary["stopped"] is False
    assert summary["final_test_acc"] is not None or summary["final_param"] is not None


def test_resumed_run_has_the_uninterrupted_summary() -> None:
    config = build_config(
        {"rounds": 8, "eval": {"every": 2, "client_every": 3, "checkpoint_every": 3}},
        ["availability.kind=bernoulli"],
    )
    whole = simulate(config, ListSink()).to_dict()
    sink = CheckpointsSink()
    simulate(config, sink)
    resumed = simulate(config, ListSink(), checkpoint=sink.checkpoints[0]).to_dict()

    timing = {"wall_s", "client_updates_per_s", "startup_s"}
    assert {k: v for k, v in resumed.items() if k not in timing} == {
        k: v for k, v in whole.items() if k not in timing
    }


def test_the_summary_reports_the_process_start_up() -> None:
    """Seconds from this process's start to the first round: more than the time since
    the test began (this process started before it), less than the process's age now."""
    started = time.perf_counter()
    summary = simulate(build_config({"rounds": 2}), ListSink()).to_dict()
    elapsed = time.perf_counter() - started

    age = process_age_s()
    assert age is not None and summary["startup_s"] is not None
    assert 0 < summary["startup_s"] <= age
    assert summary["startup_s"] > age - elapsed - 1.0  # ticks are 10 ms; slack for the rounds


def test_std_second_half_starts_at_half_the_rounds_completed() -> None:
    # CA-Fed's Table I: 150 rounds → the points at rounds completed ≥ 75; 74 is out.
    points = [(0, 0.0), (74, 0.9), (75, 0.2), (150, 0.4)]
    assert std_second_half(points, 150) == pytest.approx(0.1)  # std of (0.2, 0.4)
    assert std_second_half(points, 151) == 0.0  # only 150 ≥ 75.5
    assert std_second_half([(1, 0.5)], 4) is None
    # A run summary and a reproduction report read the same points the same way: a
    # round record t is rounds completed t + 1.
    records = [(t, {"test_acc": a}) for t, a in [(73, 0.9), (74, 0.2), (149, 0.4)]]
    assert summarise(records, 150, 1.0, None)["std_test_acc_second_half"] == pytest.approx(0.1)
    curve = Curve.of(0, {74: 0.9, 75: 0.2, 150: 0.4})
    assert figures(curve, 150)["std_second_half"] == pytest.approx(0.1)
