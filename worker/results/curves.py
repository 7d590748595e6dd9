"""Runs' series of one metric, and a group's mean curve over the rounds all its runs
recorded: mean, sample std and the 95 % t-interval of the mean at each round, and the
bands drawn around it (mean ± std and the interval) clipped to the metric's domain. The
API's comparison, the compare page, the figures and `fedwatch plot` all draw these."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypeVar

import numpy as np

from worker.results import numbers
from worker.results.stats import t_quantile

XAxis = Literal["round", "wall_s", "sim_time_s"]


@dataclass(frozen=True)
class XAxisSpec:
    """An x axis a curve can take: `key`, what the API's `x` and the series call it;
    `word`, what the pages write in their own addresses (`x=wall`); `title`, the axis
    title; `option`, its entry in a page's chooser."""

    key: XAxis
    word: str
    title: str
    option: str


X_AXES = (
    XAxisSpec("round", "round", "round", "x = round"),
    XAxisSpec("wall_s", "wall", "wall time (s)", "x = wall time"),
    XAxisSpec("sim_time_s", "sim", "simulated time (s)", "x = simulated time"),
)
X_LABELS: dict[XAxis, str] = {a.key: a.title for a in X_AXES}
Domain = tuple[float | None, float | None]
UNBOUNDED: Domain = (None, None)


@dataclass
class RunCurve:
    """One run's recorded values of a metric (NaN where not finite), by round, and the
    wall time and simulated time at those rounds (`sim_time_s` empty for a run without a
    simulated clock)."""

    id: int
    name: str
    group: str
    rounds: np.ndarray
    y: np.ndarray
    wall_s: np.ndarray
    sim_time_s: np.ndarray = field(default_factory=lambda: np.zeros(0))


R = TypeVar("R", bound=RunCurve)


def on_axis(run: R, x: XAxis) -> R:
    """The run as the x axis `x` shows it: without its points where it has no such clock
    (the simulated time of a run without a system model)."""
    if x != "sim_time_s" or len(run.sim_time_s) == len(run.rounds):
        return run
    empty = np.zeros(0)
    return replace(run, rounds=empty.astype(np.int64), y=empty, wall_s=empty, sim_time_s=empty)


def times(run: RunCurve, x: XAxis) -> np.ndarray:
    """The run's x values at its rounds: rounds, wall or simulated seconds."""
    return {"round": run.rounds, "wall_s": run.wall_s, "sim_time_s": run.sim_time_s}[x]


@dataclass(frozen=True)
class GroupCurve:
    """`run_ids`: the runs the curve is over (those that recorded the metric so far);
    `waiting`: the group's runs that have not yet. The bands' ends, mean ± std
    (`std_low`, `std_high`) and the 95 % CI of the mean (`ci_low`, `ci_high`), are
    clipped to the metric's domain; `std` is not."""

    name: str
    run_ids: list[int]
    x: list[float]
    mean: list[float]
    std: list[float]
    std_low: list[float]
    std_high: list[float]
    ci_low: list[float]
    ci_high: list[float]
    waiting: list[int]


def thin(n: int, max_points: int) -> np.ndarray:
    """Indices of the last element of each of at most `max_points` equal buckets."""
    width = max(1, -(-n // max_points))
    return np.unique(np.minimum(np.arange(width - 1, n + width - 1, width), n - 1))


def run_points(run: RunCurve, x: XAxis, max_points: int) -> tuple[list[float], list[float | None]]:
    run = on_axis(run, x)
    keep = thin(len(run.rounds), max_points) if len(run.rounds) else np.array([], dtype=int)
    ys = [None if math.isnan(v) else float(v) for v in run.y[keep]]
    return times(run, x)[keep].tolist(), ys


def clip(values: np.ndarray, domain: Domain) -> np.ndarray:
    """`values` kept inside the closed range `domain` (None: unbounded on that side)."""
    low, high = domain
    return np.clip(values, -math.inf if low is None else low, math.inf if high is None else high)


def clip_note(domain: Domain, scale: float = 1.0, unit: str = "") -> str:
    """How a band is clipped, in the display unit: "clipped to [0, 100] %", "clipped to
    ≥ 0 s"; empty for an unbounded metric."""
    low, high = (None if v is None else numbers.value(v, scale) for v in domain)
    unit = f" {unit}" if unit else ""
    if low is not None and high is not None:
        return f"clipped to [{low}, {high}]{unit}"
    if low is not None:
        return f"clipped to ≥ {low}{unit}"
    return "" if high is None else f"clipped to ≤ {high}{unit}"


def group_curve(
    name: str,
    group: Sequence[RunCurve],
    x: XAxis,
    max_points: int,
    domain: Domain = UNBOUNDED,
) -> GroupCurve:
    """The group's mean, std and CI at the rounds every run that has started recorded a
    finite value: while runs progress, the curve grows with the slowest started one.
    The bands are clipped to `domain`, the metric's (`MetricSpec.domain`)."""
    shown = [on_axis(r, x) for r in group]
    runs = [r for r in shown if len(r.rounds)]
    waiting = [r.id for r in shown if not len(r.rounds)]
    if not runs:
        return GroupCurve(name, [], [], [], [], [], [], [], [], waiting)
    common = runs[0].rounds
    for run in runs[1:]:
        common = np.intersect1d(common, run.rounds)
    ys = np.stack([r.y[np.searchsorted(r.rounds, common)] for r in runs])
    at = np.stack([times(r, x)[np.searchsorted(r.rounds, common)] for r in runs])
    finite = ~np.isnan(ys).any(axis=0)
    ys, at, common = ys[:, finite], at[:, finite], common[finite]
    keep = thin(len(common), max_points) if len(common) else np.array([], dtype=int)
    xs = at.mean(axis=0)  # the rounds themselves on x = round
    mean = ys.mean(axis=0)
    n = len(runs)
    std = ys.std(axis=0, ddof=1) if n > 1 else np.zeros(ys.shape[1])
    std[np.ptp(ys, axis=0) == 0] = 0.0  # identical values: no rounding left in their std
    half = t_quantile(n - 1) * std / math.sqrt(n) if n > 1 else np.zeros(ys.shape[1])

    def band(values: np.ndarray) -> list[float]:
        return clip(values[keep], domain).tolist()

    return GroupCurve(
        name=name,
        run_ids=[r.id for r in runs],
        x=np.asarray(xs, dtype=float)[keep].tolist(),
        mean=mean[keep].tolist(),
        std=std[keep].tolist(),
        std_low=band(mean - std),
        std_high=band(mean + std),
        ci_low=band(mean - half),
        ci_high=band(mean + half),
        waiting=waiting,
    )


def grouped(runs: Sequence[R]) -> dict[str, list[R]]:
    """The runs by group, groups in the order their first run comes."""
    groups: dict[str, list[R]] = {}
    for run in runs:
        groups.setdefault(run.group, []).append(run)
    return groups
