"""Runs read for a comparison and grouped; the table and its tests are
`worker.results.stats`'s, its formats and figures `worker.results`'; what differs between
the runs' configs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from worker.engine import current
from worker.engine.used_params import used_params
from worker.results import stats
from worker.results.curves import RunCurve
from worker.results.grouping import CONFIG_IGNORED, canon, flatten


@dataclass
class RunData(RunCurve):
    seed: int | None = None  # None: an external run that named none
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
    groups: dict[str, list[RunData]], reference: str | None, alpha: float, names: list[str] | None
) -> stats.Table:
    """The groups' summary values (`names`, or all compared ones), tested against
    `reference` at level `alpha`."""
    samples = {g: [r.sample() for r in runs] for g, runs in groups.items()}
    return stats.compare(samples, reference, alpha, names)


def targets(groups: dict[str, list[RunData]]) -> list[float | None]:
    return [r.target for runs in groups.values() for r in runs]


@dataclass(frozen=True)
class ConfigDiff:
    """What differs between the compared runs' configs (their name and seed aside), each
    config with the parameters of the components its run used only (`used_params`):
    - `keys`: the dotted keys of configs of one shape whose values are not all the same
      in the runs that have them (config order): a parameter of a component only some
      runs used is compared between those; `values[group][key]`: the distinct values of
      the group's runs that have the key (in run order), for the keys the group has;
    - `partial`: the keys of configs of different shapes (a simulated run's 90 fields
      against an external run's own 4), some runs have and others lack whatever
      components they used; `only[group][key]`: the distinct values of the group's runs
      that have the key, for the partial keys the group has."""

    keys: list[str]
    values: dict[str, dict[str, list[Any]]]
    partial: list[str]
    only: dict[str, dict[str, list[Any]]]


def config_diff(groups: dict[str, list[RunData]]) -> ConfigDiff:
    components = current()
    whole = [flatten(r.config) for runs in groups.values() for r in runs]
    flat = {g: [flatten(used_params(r.config, components)) for r in runs]
            for g, runs in groups.items()}  # fmt: skip
    every = [f for fs in flat.values() for f in fs]
    keys = [k for k in dict.fromkeys(k for f in every for k in f) if k not in CONFIG_IGNORED]
    partial = [k for k in keys if not all(k in f for f in whole)]
    shared = [k for k in keys if k not in partial]

    differing = [k for k in shared if len({canon(f[k]) for f in every if k in f}) > 1]

    def distinct(fs: list[dict[str, Any]], key: str) -> list[Any]:
        return list({canon(f[key]): f[key] for f in fs if key in f}.values())

    values = {g: {k: distinct(fs, k) for k in differing if any(k in f for f in fs)}
              for g, fs in flat.items()}  # fmt: skip
    only = {g: {k: distinct(fs, k) for k in partial if any(k in f for f in fs)}
            for g, fs in flat.items()}  # fmt: skip
    return ConfigDiff(differing, values, partial, only)
