"""`period_swing`: how far an accuracy curve swings within each availability cycle."""

from __future__ import annotations

import math

import pytest

from worker.reproduction.figures import Curve, period_swing


def test_the_mean_range_of_the_whole_cycles_from_start_on() -> None:
    curve = Curve(0, (0, 10, 20, 30, 40, 50, 60, 70), (0.1, 0.9, 0.5, 0.8, 0.2, 0.6, 0.6, 0.7))

    # cycles (20, 40] -> 0.8, 0.2 and (40, 60] -> 0.6, 0.6; (60, 80] is not whole
    assert period_swing(curve, 20, 20) == pytest.approx((0.6 + 0.0) / 2)


def test_nan_where_no_whole_cycle_was_logged() -> None:
    assert math.isnan(period_swing(Curve(0, (0, 10), (0.1, 0.2)), 20, 0))
