"""One round in time, by hand: three clients whose download, compute and upload take
(1, 1, 1), (0.5, 3, 0.5) and (2, 5, 2) seconds, 2 local steps each; full work arrives
at start + 3, + 4 and + 9."""

from __future__ import annotations

import math

import numpy as np
from numpy.testing import assert_allclose

from worker.engine.system.timing import DISCARDED, DROPPED, KEPT, PARTIAL, Work, time_round

WORK = Work(
    down_s=np.array([1.0, 0.5, 2.0]),
    compute_s=np.array([1.0, 3.0, 5.0]),
    up_s=np.array([1.0, 0.5, 2.0]),
    steps=np.array([2, 2, 2]),
)
STAYS = np.full(3, math.inf)


def times(values: list[float]) -> np.ndarray:
    return np.array(values)


def test_everyone_arrives_the_round_waits_for_the_slowest() -> None:
    r = time_round(10.0, WORK, STAYS, math.inf, partial=False, need=3)

    assert r.outcome.tolist() == [KEPT, KEPT, KEPT]
    assert r.done.tolist() == [2, 2, 2]
    assert_allclose(r.download_end, times([11, 10.5, 12]))
    assert_allclose(r.compute_end, times([12, 13.5, 17]))
    assert_allclose(r.end, times([13, 14, 19]))
    assert (r.round_end, r.wasted_s) == (19.0, 0.0)


def test_a_deadline_drops_the_late_update_and_ends_the_round() -> None:
    r = time_round(10.0, WORK, STAYS, 5.0, partial=False, need=3)

    assert r.outcome.tolist() == [KEPT, KEPT, DROPPED]
    assert r.round_end == 15.0  # the deadline: client 2 never came
    # client 2 computes from 12 until the round ends at 15, for nothing
    assert_allclose(r.compute_end, times([12, 13.5, 15]))
    assert_allclose(r.end, times([13, 14, 15]))
    assert r.wasted_s == 3.0


def test_a_deadline_with_partial_work_keeps_the_steps_that_fit() -> None:
    r = time_round(10.0, WORK, STAYS, 7.0, partial=True, need=3)

    # client 2: 17 − 12 − 2 = 3 s for steps of 2.5 s: one step, arriving at 16.5
    assert r.outcome.tolist() == [KEPT, KEPT, PARTIAL]
    assert r.done.tolist() == [2, 2, 1]
    assert_allclose(r.end, times([13, 14, 16.5]))
    assert (r.round_end, r.wasted_s) == (16.5, 0.0)


def test_over_commitment_keeps_the_first_arrivals() -> None:
    r = time_round(0.0, WORK, STAYS, math.inf, partial=False, need=2)

    assert r.outcome.tolist() == [KEPT, KEPT, DISCARDED]
    assert r.round_end == 4.0  # the second arrival
    assert_allclose(r.compute_end, times([2, 3.5, 4]))  # client 2 stops when the round ends
    assert r.wasted_s == 2.0


def test_a_client_leaving_mid_round_under_drop_and_keep() -> None:
    leaves = times([math.inf, math.inf, 7.0])

    dropped = time_round(0.0, WORK, leaves, math.inf, partial=False, need=3)
    kept = time_round(0.0, WORK, leaves, math.inf, partial=True, need=3)

    # drop: it computes from 2 to 7, then is gone; the round ends when it leaves
    assert dropped.outcome.tolist() == [KEPT, KEPT, DROPPED]
    assert dropped.done.tolist() == [2, 2, 0]
    assert (dropped.round_end, dropped.wasted_s) == (7.0, 5.0)
    # keep: 7 − 2 − 2 = 3 s left for steps of 2.5 s: one step, uploaded by 6.5
    assert kept.outcome.tolist() == [KEPT, KEPT, PARTIAL]
    assert kept.done.tolist() == [2, 2, 1]
    assert (kept.round_end, kept.wasted_s) == (6.5, 0.0)
    assert_allclose(kept.compute_end, times([2, 3.5, 4.5]))


def test_keep_with_no_step_that_fits_returns_and_computes_nothing() -> None:
    r = time_round(0.0, WORK, times([math.inf, math.inf, 5.0]), math.inf, partial=True, need=3)

    # 5 − 2 − 2 = 1 s: less than a step of 2.5 s
    assert r.outcome.tolist() == [KEPT, KEPT, DROPPED]
    assert r.done.tolist() == [2, 2, 0]
    assert r.compute_end[2] == 2.0
    assert (r.round_end, r.wasted_s) == (5.0, 0.0)


def test_no_client_no_time() -> None:
    none = np.zeros(0)
    empty = Work(none, none, none, np.zeros(0, dtype=np.int64))

    r = time_round(3.0, empty, none, math.inf, partial=False, need=0)

    assert (r.round_end, r.wasted_s, len(r.outcome)) == (3.0, 0.0, 0)
