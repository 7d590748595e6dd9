"""Group runs, align their series on common rounds, summarise, and test paired seeds."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from api.schemas.compare import GroupSeries, RunSeries, Stat, TableRow, TTest
from worker.engine.stats import paired_p

SUMMARY_KEYS = (
    "best_test_acc",
    "final_test_acc",
    "time_avg_test_acc",
    "std_test_acc_second_half",
    "rounds_to_target",
)
FINAL_METRICS = ("client_acc_worst10", "client_acc_best10")
TTEST_METRIC = "time_avg_test_acc"


@dataclass
class RunData:
    id: int
    name: str
    group: str
    seed: int
    rounds: np.ndarray
    y: np.ndarray
    wall_s: np.ndarray
    scores: dict[str, float | None]


def thin(n: int, max_points: int) -> np.ndarray:
    """Indices of the last element of each of at most `max_points` equal buckets."""
    width = max(1, -(-n // max_points))
    return np.unique(np.minimum(np.arange(width - 1, n + width - 1, width), n - 1))


def stat(values: list[float]) -> Stat:
    """Mean and sample standard deviation (0 for a single value, null for none)."""
    if not values:
        return Stat(mean=None, std=None)
    std = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
    return Stat(mean=float(np.mean(values)), std=std)


def run_series(run: RunData, x: str, max_points: int) -> RunSeries:
    keep = thin(len(run.rounds), max_points) if len(run.rounds) else np.array([], dtype=int)
    xs = run.rounds if x == "round" else run.wall_s
    ys = [None if math.isnan(v) else float(v) for v in run.y[keep]]
    return RunSeries(id=run.id, name=run.name, group=run.group, x=xs[keep].tolist(), y=ys)


def group_series(name: str, runs: list[RunData], x: str, max_points: int) -> GroupSeries:
    common = runs[0].rounds
    for run in runs[1:]:
        common = np.intersect1d(common, run.rounds)
    ys = np.stack([r.y[np.searchsorted(r.rounds, common)] for r in runs])
    walls = np.stack([r.wall_s[np.searchsorted(r.rounds, common)] for r in runs])
    finite = ~np.isnan(ys).any(axis=0)
    ys, walls, common = ys[:, finite], walls[:, finite], common[finite]
    keep = thin(len(common), max_points) if len(common) else np.array([], dtype=int)
    xs = common if x == "round" else walls.mean(axis=0)
    std = ys.std(axis=0, ddof=1) if len(runs) > 1 else np.zeros(ys.shape[1])
    return GroupSeries(
        name=name,
        run_ids=[r.id for r in runs],
        x=np.asarray(xs, dtype=float)[keep].tolist(),
        mean=ys.mean(axis=0)[keep].tolist(),
        std=std[keep].tolist(),
    )


def table_row(name: str, runs: list[RunData]) -> TableRow:
    stats = {
        key: stat([v for r in runs if (v := r.scores.get(key)) is not None])
        for key in (*SUMMARY_KEYS, *FINAL_METRICS)
    }
    return TableRow(group=name, n=len(runs), **stats)


def paired_ttest(name: str, runs: list[RunData], ref: str, ref_runs: list[RunData]) -> TTest:
    """Paired t-test of the time-averaged accuracy, runs paired by seed."""
    mine = {r.seed: r.scores.get(TTEST_METRIC) for r in reversed(runs)}
    theirs = {r.seed: r.scores.get(TTEST_METRIC) for r in reversed(ref_runs)}
    pairs = [
        (a, b) for seed, a in mine.items() if a is not None and (b := theirs.get(seed)) is not None
    ]
    p_value = paired_p([a for a, _ in pairs], [b for _, b in pairs])
    return TTest(
        group=name, reference=ref, metric=TTEST_METRIC, p_value=p_value, n_pairs=len(pairs)
    )
