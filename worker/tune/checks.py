"""What is checked before a tune starts anything, by the command and the API alike:
every bound of the space is a valid value of its key for every method, and every method
records the objective (one round of it is run to see)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from worker.engine import ConfigError, ListSink, simulate
from worker.tune.space import Dimension, assignments
from worker.tune.study import ConfigOf, TuneSpec


def probes(dim: Dimension) -> list[Any]:
    """The values of `dim` a check tries: its choices, or its two bounds."""
    if dim.kind == "choice":
        return list(dim.choices)
    cast = int if dim.kind == "int" else float
    return [cast(dim.low), cast(dim.high)]


def check_methods(configs: Mapping[str, ConfigOf], spec: TuneSpec) -> None:
    """ConfigError naming the key (or `objective`) at fault for the first method of
    `configs` (method → its config with the given assignments) that fails a check."""
    for method, make in configs.items():
        for dim in spec.space:
            for value in probes(dim):
                make(assignments({dim.key: value}))
        probe = make(["rounds=1", *assignments({d.key: probes(d)[0] for d in spec.space})])
        name = spec.objective.spec.name
        if simulate(probe, ListSink()).values[name] is None:
            raise ConfigError(f"objective: {method} records no {name}")
