"""Group runs and align their series on common rounds; the table and its t-tests are
`worker.engine.stats`'s; what differs between the runs' configs."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from api.schemas.compare import GroupSeries, RunSeries, Stat, TableRow, TTest
from worker.engine import stats


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
    config: dict[str, Any] = field(default_factory=dict)
    sim_time_s: np.ndarray = field(default_factory=lambda: np.zeros(0))  # none: no clock

    def sample(self) -> stats.Sample:
        return stats.Sample(self.seed, self.scores)


def thin(n: int, max_points: int) -> np.ndarray:
    """Indices of the last element of each of at most `max_points` equal buckets."""
    width = max(1, -(-n // max_points))
    return np.unique(np.minimum(np.arange(width - 1, n + width - 1, width), n - 1))


def on_axis(run: RunData, x: str) -> RunData:
    """The run as the x axis `x` shows it: without its points where it has no such
    clock (simulated time of a run without a system model)."""
    if x != "sim_time_s" or len(run.sim_time_s) == len(run.rounds):
        return run
    empty = np.zeros(0)
    return replace(run, rounds=empty.astype(np.int64), y=empty, wall_s=empty, sim_time_s=empty)


def clock(run: RunData, x: str) -> np.ndarray:
    """The run's times at its rounds: wall or simulated seconds."""
    return run.sim_time_s if x == "sim_time_s" else run.wall_s


def run_series(run: RunData, x: str, max_points: int) -> RunSeries:
    run = on_axis(run, x)
    keep = thin(len(run.rounds), max_points) if len(run.rounds) else np.array([], dtype=int)
    xs = run.rounds if x == "round" else clock(run, x)
    ys = [None if math.isnan(v) else float(v) for v in run.y[keep]]
    return RunSeries(id=run.id, name=run.name, group=run.group, x=xs[keep].tolist(), y=ys)


def group_series(name: str, runs: list[RunData], x: str, max_points: int) -> GroupSeries:
    runs = [on_axis(r, x) for r in runs]
    common = runs[0].rounds
    for run in runs[1:]:
        common = np.intersect1d(common, run.rounds)
    ys = np.stack([r.y[np.searchsorted(r.rounds, common)] for r in runs])
    times = np.stack([clock(r, x)[np.searchsorted(r.rounds, common)] for r in runs])
    finite = ~np.isnan(ys).any(axis=0)
    ys, times, common = ys[:, finite], times[:, finite], common[finite]
    keep = thin(len(common), max_points) if len(common) else np.array([], dtype=int)
    xs = common if x == "round" else times.mean(axis=0)
    std = ys.std(axis=0, ddof=1) if len(runs) > 1 else np.zeros(ys.shape[1])
    return GroupSeries(
        name=name,
        run_ids=[r.id for r in runs],
        x=np.asarray(xs, dtype=float)[keep].tolist(),
        mean=ys.mean(axis=0)[keep].tolist(),
        std=std[keep].tolist(),
    )


def table(
    groups: dict[str, list[RunData]], reference: str
) -> tuple[list[str], list[TableRow], list[TTest]]:
    """Columns, rows and t-tests of the groups' summary values."""
    result = stats.compare({g: [r.sample() for r in runs] for g, runs in groups.items()}, reference)
    rows = [
        TableRow(
            group=row.group,
            n=row.n,
            seeds=row.seeds,
            stats={k: Stat(**asdict(v)) for k, v in row.stats.items()},
        )
        for row in result.rows
    ]
    ttests = [TTest(**asdict(t)) for t in result.tests]
    return [c.name for c in result.columns], rows, ttests


CONFIG_IGNORED = ("name", "seed")
"""Left out of the config diff: the name is the run's own, and seeds pair runs (each row
lists its `seeds`)."""


def flatten(config: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Dotted key -> value of every leaf (lists are leaves: `data.means`)."""
    out: dict[str, Any] = {}
    for key, value in config.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(flatten(value, path + "."))
        else:
            out[path] = value
    return out


_MISSING = "\u0000missing"


def config_diff(
    groups: dict[str, list[RunData]],
) -> tuple[list[str], dict[str, dict[str, list[Any]]]]:
    """The dotted keys whose value is not the same in all the compared runs (in config
    order; name and seed aside), and per group the distinct values its runs have of each
    (in run order; null for a run whose config lacks the key)."""
    flat = {g: [flatten(r.config) for r in runs] for g, runs in groups.items()}
    every = [f for fs in flat.values() for f in fs]
    keys = [k for k in dict.fromkeys(k for f in every for k in f) if k not in CONFIG_IGNORED]

    def canon(f: dict[str, Any], key: str) -> str:
        return json.dumps(f[key], sort_keys=True) if key in f else _MISSING

    differing = [k for k in keys if len({canon(f, k) for f in every}) > 1]
    values: dict[str, dict[str, list[Any]]] = {}
    for g, fs in flat.items():
        values[g] = {}
        for k in differing:
            seen = {canon(f, k): f.get(k) for f in fs}
            values[g][k] = list(seen.values())
    return differing, values
