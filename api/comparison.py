"""Runs read for a comparison and grouped; the table and its tests are
`worker.engine.stats`'s, its formats and figures `worker.results`'; what differs between
the runs' configs."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from worker.engine import stats
from worker.results.curves import RunCurve


@dataclass
class RunData(RunCurve):
    seed: int = 0
    scores: dict[str, float | None] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)

    def sample(self) -> stats.Sample:
        return stats.Sample(self.seed, self.scores)

    @property
    def target(self) -> float | None:
        """The accuracy its `rounds_to_target` counts to (`eval.target_acc`)."""
        value = (self.config.get("eval") or {}).get("target_acc")
        return float(value) if isinstance(value, int | float) else None


def table(
    groups: dict[str, list[RunData]], reference: str, alpha: float, names: list[str] | None
) -> stats.Table:
    """The groups' summary values (`names`, or all compared ones), tested against
    `reference` at level `alpha`."""
    samples = {g: [r.sample() for r in runs] for g, runs in groups.items()}
    return stats.compare(samples, reference, alpha, names)


def targets(groups: dict[str, list[RunData]]) -> list[float | None]:
    return [r.target for runs in groups.values() for r in runs]


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
