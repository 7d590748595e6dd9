"""A group's curve: its bands (mean ± std and the 95 % CI of the mean) kept inside the
metric's domain, and the note that says how."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from worker.engine import metrics
from worker.results.curves import RunCurve, clip_note, group_curve

ACCURACY = (0.0, 1.0)
T_1 = 12.706204736  # Student's t, 1 degree of freedom, two-sided 95 %


def runs(*ys: list[float]) -> list[RunCurve]:
    rounds = np.arange(len(ys[0]))
    return [RunCurve(i, f"r{i}", "g", rounds, np.array(y), rounds * 1.0) for i, y in enumerate(ys)]


def test_bands_near_the_bounds_are_clipped_to_the_domain() -> None:
    # round 0: 0.9 and 1.0, mean 0.95, std 0.05·√2, CI half-width T_1·0.05
    # round 1: 0.2 and 0.0, mean 0.1, std 0.1·√2, CI half-width T_1·0.1
    curve = group_curve("g", runs([0.9, 0.2], [1.0, 0.0]), "round", 10, ACCURACY)

    assert_allclose(curve.mean, [0.95, 0.1])
    assert_allclose(curve.std, [0.05 * np.sqrt(2), 0.1 * np.sqrt(2)])  # std itself is not clipped
    assert_allclose(curve.std_low, [0.95 - 0.05 * np.sqrt(2), 0.0])  # 0.1 − 0.141 < 0
    assert_allclose(curve.std_high, [1.0, 0.1 + 0.1 * np.sqrt(2)])  # 0.95 + 0.071 > 1
    assert_allclose(curve.ci_low, [0.95 - T_1 * 0.05, 0.0])
    assert_allclose(curve.ci_high, [1.0, 1.0])


def test_an_unbounded_metric_keeps_its_bands() -> None:
    curve = group_curve("g", runs([0.9, 0.2], [1.0, 0.0]), "round", 10)

    assert_allclose(curve.ci_low, [0.95 - T_1 * 0.05, 0.1 - T_1 * 0.1])
    assert_allclose(curve.ci_high, [0.95 + T_1 * 0.05, 0.1 + T_1 * 0.1])


@pytest.mark.parametrize(
    "ys",
    [
        ([1.0, 0.0], [1.0, 0.0]),  # zero variance, on both bounds
        ([1.0, 0.0],),  # one run
    ],
)
def test_degenerate_groups_have_the_mean_as_their_band(ys: tuple[list[float], ...]) -> None:
    curve = group_curve("g", runs(*ys), "round", 10, ACCURACY)

    for end in (curve.std_low, curve.std_high, curve.ci_low, curve.ci_high):
        assert end == [1.0, 0.0]


def test_times_are_clipped_below_only() -> None:
    # 0.0 and 3.0 s: mean 1.5, std 1.5·√2; the lower ends go below 0, the upper stay
    curve = group_curve("g", runs([0.0], [3.0]), "round", 10, (0.0, None))

    assert curve.std_low == [0.0] and curve.ci_low == [0.0]
    assert_allclose(curve.std_high, [1.5 + 1.5 * np.sqrt(2)])
    assert_allclose(curve.ci_high, [1.5 + T_1 * 1.5])


def test_clip_note_says_the_domain_in_the_display_unit() -> None:
    specs = metrics.by_name()
    acc, wall = specs["test_acc"], specs["round_time_s"]

    assert clip_note(acc.domain, acc.scale, acc.unit) == "clipped to [0, 100] %"
    assert clip_note(wall.domain, wall.scale, wall.unit) == "clipped to ≥ 0 s"
    assert clip_note((None, 5.0)) == "clipped to ≤ 5"
    assert clip_note((None, None), 100.0, "%") == ""
    assert clip_note((0.0, 0.5), 100.0, "%") == "clipped to [0, 50] %"
