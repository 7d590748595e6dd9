"""A paper's figures from an accuracy curve: the one computation for FedWatch's runs
and the authors' reference runs.

A curve is the test accuracy at the rounds a run evaluated, as rounds completed (0 = the
initial model). CA-Fed's paper reports, over such a curve: its maximum, its mean (the
"time-average", over every point, the initial model's included) and the population std
of the points of the second half (`summary.std_second_half`: rounds completed ≥ rounds / 2).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from worker.engine import std_second_half

FIGURES = ("max", "time_avg", "std_second_half")
# every figure a preset's `published` may hold: the ones above, and the test accuracy a
# benchmark's table gives without its curve (`accuracy`; the preset's source says at
# which round)
LABELS = {
    "max": "max",
    "time_avg": "time-average",
    "std_second_half": "std 2nd half",
    "accuracy": "test accuracy",
}


@dataclass(frozen=True)
class Curve:
    """Accuracies (fractions) at rounds completed, ascending; `seed` of the run."""

    seed: int
    rounds: tuple[int, ...]
    acc: tuple[float, ...]

    @classmethod
    def of(cls, seed: int, points: Mapping[int, float]) -> Curve:
        ordered = sorted(points.items())
        return cls(seed, tuple(r for r, _ in ordered), tuple(a for _, a in ordered))


def figures(curve: Curve, rounds: int) -> dict[str, float]:
    """max, time-average and std of the second half of `curve` (a run of `rounds`)."""
    std = std_second_half(zip(curve.rounds, curve.acc, strict=True), rounds)
    return {
        "max": max(curve.acc),
        "time_avg": math.fsum(curve.acc) / len(curve.acc),
        "std_second_half": math.nan if std is None else std,
    }


def period_swing(curve: Curve, period: int, start: int) -> float:
    """The mean, over the whole availability cycles [s, s + period) from `start` on, of
    the range (max − min) of the accuracies logged at rounds completed in (s, s + period]:
    how far a curve swings with a periodic availability (FedLaAvg's diurnal groups). NaN
    where no whole cycle was logged."""
    points = dict(zip(curve.rounds, curve.acc, strict=True))
    swings = []
    for s in range(start, max(curve.rounds) - period + 1, period):
        cycle = [a for r, a in points.items() if s < r <= s + period]
        if cycle:
            swings.append(max(cycle) - min(cycle))
    return math.fsum(swings) / len(swings) if swings else math.nan


def mean_curve(curves: Sequence[Curve]) -> tuple[list[int], list[float]]:
    """The mean accuracy across runs at the rounds every run evaluated."""
    common = sorted(set.intersection(*(set(c.rounds) for c in curves))) if curves else []
    by_run = [dict(zip(c.rounds, c.acc, strict=True)) for c in curves]
    return common, [math.fsum(run[r] for run in by_run) / len(by_run) for r in common]


def rmse(a: Curve | tuple[list[int], list[float]], b: tuple[list[int], list[float]]) -> float:
    """Root-mean-square difference of two curves over the rounds both evaluated."""
    ra, va = (list(a.rounds), list(a.acc)) if isinstance(a, Curve) else a
    other = dict(zip(*b, strict=True))
    diffs = [v - other[r] for r, v in zip(ra, va, strict=True) if r in other]
    return math.sqrt(math.fsum(d * d for d in diffs) / len(diffs))


def run_curve(seed: int, rounds: Iterable[tuple[int, Mapping[str, float]]]) -> Curve:
    """A FedWatch run's curve from its round records: `initial_test_acc` at round 0 and
    each `test_acc` at round t + 1 (rounds completed)."""
    points: dict[int, float] = {}
    for t, values in rounds:
        if "initial_test_acc" in values:
            points[0] = float(values["initial_test_acc"])
        if "test_acc" in values:
            points[t + 1] = float(values["test_acc"])
    return Curve.of(seed, points)
