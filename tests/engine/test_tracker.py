import math

import numpy as np
import pytest
import torch

from worker.engine.masks import Available
from worker.engine.records import ClientWeights
from worker.engine.tracker import Tally, Tracker, _spread


def entered(dense: torch.Tensor) -> ClientWeights:
    """The clients with a weight, as a round's record holds them."""
    ids = dense.nonzero().flatten()
    return ClientWeights(ids.numpy(), dense[ids].numpy())


def test_staleness_by_hand() -> None:
    tracker = Tracker(torch.full((4,), 0.25), target_acc=None)
    everyone = Available.of(torch.ones(4, dtype=torch.bool))
    tracker.client_metrics(
        0, everyone, torch.tensor([0, 1]), entered(torch.tensor([0.5, 0.5, 0, 0]))
    )

    m = tracker.client_metrics(
        1, everyone, torch.tensor([1]), entered(torch.tensor([0.5, 0.5, 0, 0]))
    )

    # after round 1: client 0 last at 0 → 1; client 1 → 0; clients 2, 3 never → 2
    assert (m["staleness_mean"], m["staleness_max"]) == (1.25, 2.0)
    assert m["staleness_p50"] == pytest.approx(1.5)


def test_tv_bias_by_hand() -> None:
    tracker = Tracker(torch.tensor([0.5, 0.5]), target_acc=None)

    both = Available.of(torch.ones(2, dtype=torch.bool))
    first = tracker.client_metrics(0, both, torch.tensor([0]), entered(torch.tensor([1.0, 0.0])))
    second = tracker.client_metrics(1, both, torch.tensor([1]), entered(torch.tensor([0.0, 1.0])))

    # p = (1, 0): TV = ½(|0.5 − 1| + |0.5 − 0|) = 0.5; the average of p over both rounds is α
    assert first["tv_bias"] == pytest.approx(0.5)
    assert second["tv_bias_avg"] == pytest.approx(0.0)


def test_summary_by_hand() -> None:
    tracker = Tracker(torch.full((2,), 0.5), target_acc=0.6)
    for t, acc in enumerate([0.2, 0.7, 0.5, 0.9]):
        tracker.observe(t, {"test_acc": acc, "test_loss": 1.0 - acc})

    s = tracker.summary(rounds=4, wall_s=2.0, stopped=False)

    assert (s["best_test_acc"], s["final_test_acc"]) == (0.9, 0.9)
    assert s["time_avg_test_acc"] == pytest.approx(0.575)
    # rounds completed 2..4 (≥ 4 / 2): (0.7, 0.5, 0.9), mean 0.7, variance 0.08 / 3
    assert s["std_test_acc_second_half"] == pytest.approx(math.sqrt(0.08 / 3))
    assert s["rounds_to_target"] == 2
    assert s["final_test_loss"] == pytest.approx(0.1)


def test_participation_bias_by_hand() -> None:
    # 3 clients of equal data (α = ⅓ each), available in 4, 2 and 1 of 4 rounds; the
    # rounds aggregate p = (½, ½, 0), (½, ½, 0), (1, 0, 0) and nothing (no weight: not a
    # round of p̄): p̄ = (⅔, ⅓, 0), TV = ½(⅓ + 0 + ⅓) = ⅓; the least available fifth is
    # client 2: 0 of the aggregate for ⅓ of the data
    tracker = Tracker(torch.full((3,), 1 / 3), target_acc=None)
    rounds = [([0, 1, 2], [0.5, 0.5, 0]), ([0, 1], [0.5, 0.5, 0]), ([0], [1, 0, 0]), ([0], [])]
    for t, (available, weights) in enumerate(rounds):
        mask = torch.zeros(3, dtype=torch.bool)
        mask[available] = True
        w = torch.tensor(weights or [0.0, 0.0, 0.0])
        tracker.client_metrics(t, Available.of(mask), w.nonzero().flatten(), entered(w))

    s = tracker.summary(rounds=4, wall_s=1.0, stopped=False)

    assert s["participation_tv"] == pytest.approx(1 / 3)
    assert s["least_available_gap"] == pytest.approx(-1 / 3)
    assert s["slowest_gap"] is None  # no device times


def test_participation_bias_under_constant_availability() -> None:
    # both clients always there, only client 0 ever weighted (a deadline client 1 always
    # misses): the bias shows, where a correlation with availability was undefined
    tracker = Tracker(torch.full((2,), 0.5), target_acc=None, work_s=np.array([1.0, 9.0]))
    both = Available.of(torch.ones(2, dtype=torch.bool))
    tracker.client_metrics(0, both, torch.tensor([0]), entered(torch.tensor([1.0, 0.0])))

    s = tracker.summary(rounds=1, wall_s=1.0, stopped=False)

    assert s["participation_tv"] == pytest.approx(0.5)
    assert s["least_available_gap"] is None  # availability does not vary
    assert s["slowest_gap"] == pytest.approx(-0.5)  # client 1, the slower device


def test_no_participation_bias_before_an_aggregate() -> None:
    tracker = Tracker(torch.full((2,), 0.5), target_acc=None)
    s = tracker.summary(rounds=0, wall_s=1.0, stopped=False)
    assert s["participation_tv"] is None and s["least_available_gap"] is None


def test_client_metrics_equal_the_pass_over_every_client() -> None:
    # the staleness kept by round counts gives the figures `torch.quantile` & co. give
    # on the N clients' staleness, and the bias over the weighted clients the sums over
    # all N, round after round, also after a resume
    g = torch.Generator().manual_seed(0)
    n = 37
    alpha = torch.rand(n, generator=g, dtype=torch.float64)
    alpha /= alpha.sum()
    tracker = Tracker(alpha, target_acc=None)
    p_sum, p_rounds = torch.zeros(n, dtype=torch.float64), 0
    for t in range(40):
        if t == 20:
            resumed = Tracker(alpha, target_acc=None)
            resumed.load_state_dict(tracker.state_dict())
            tracker = resumed
        selected = torch.randperm(n, generator=g)[: int(torch.randint(0, 6, (1,), generator=g))]
        weights = torch.zeros(n)
        weights[selected] = torch.rand(len(selected), generator=g)
        everyone = Available.of(torch.ones(n, dtype=torch.bool))
        m = tracker.client_metrics(t, everyone, selected.sort().values, entered(weights))

        assert {k: v for k, v in m.items() if k.startswith("staleness")} == _spread(
            "staleness", (t - tracker.last).double()
        )
        if len(selected):
            p = weights.double() / weights.double().sum()
            p_sum, p_rounds = p_sum + p, p_rounds + 1
            assert m["tv_bias"] == pytest.approx(0.5 * float((alpha - p).abs().sum()))
            expected_avg = 0.5 * float((alpha - p_sum / p_rounds).abs().sum())
            assert m["tv_bias_avg"] == pytest.approx(expected_avg)
        else:
            assert "tv_bias" not in m


def test_tally_by_hand() -> None:
    # three rounds: (1, 0, 1), (1, 1, 0), (1, 0, 0) → (3, 1, 1)
    tally = Tally(3)
    for bits in ([1, 0, 1], [1, 1, 0], [1, 0, 0]):
        tally.add(torch.tensor(bits, dtype=torch.bool))

    assert tally.counts().tolist() == [3, 1, 1]
    assert tally.counts().dtype == torch.long


def test_tally_counts_past_a_byte() -> None:
    # 600 rounds: client 0 every round, client 1 every other, client 2 never: counts
    # past 255, carried out of the bytes, also across a restore from the counts
    tally = Tally(3)
    for t in range(600):
        if t == 300:
            tally = Tally.of(tally.counts())
        tally.add(torch.tensor([True, t % 2 == 0, False]))

    assert tally.counts().tolist() == [600, 300, 0]
