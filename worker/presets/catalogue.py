"""Every preset by name, and the reference lines a stored run's problem gets."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from worker.engine import ConfigError, current
from worker.engine.moved import moved
from worker.engine.used_params import used_params
from worker.presets.baselines import (
    FEDML_SHAKESPEARE,
    LEAF_FEMNIST_ACCURACY,
    NIID_BENCH_CIFAR10,
    NIID_BENCH_CIFAR10_100,
)
from worker.presets.cafed import CAFED_MNIST, CAFED_SYNTHETIC
from worker.presets.combined import CIFAR10_DIRICHLET, FEMNIST_MARKOV
from worker.presets.example1 import EXAMPLE1
from worker.presets.fedar import FEDAR_CIFAR10, FEDAR_MNIST
from worker.presets.fedlaavg import FEDLAAVG_CIFAR10, FEDLAAVG_MNIST
from worker.presets.leaf import LEAF_FEMNIST, LEAF_SHAKESPEARE
from worker.presets.mifa import MIFA_CIFAR10
from worker.presets.model import Preset, Reference
from worker.presets.privacy import DP_AVAILABILITY
from worker.presets.timed import ASYNC_VS_SYNC, FEDSCALE_TRACE, STRAGGLERS

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        EXAMPLE1,
        FEDLAAVG_MNIST,
        FEDLAAVG_CIFAR10,
        MIFA_CIFAR10,
        FEDAR_CIFAR10,
        FEDAR_MNIST,
        CAFED_SYNTHETIC,
        CAFED_MNIST,
        STRAGGLERS,
        FEDSCALE_TRACE,
        ASYNC_VS_SYNC,
        DP_AVAILABILITY,
        LEAF_FEMNIST,
        LEAF_SHAKESPEARE,
        CIFAR10_DIRICHLET,
        FEMNIST_MARKOV,
        LEAF_FEMNIST_ACCURACY,
        FEDML_SHAKESPEARE,
        NIID_BENCH_CIFAR10,
        NIID_BENCH_CIFAR10_100,
    )
}


@functools.cache
def _problem(name: str) -> tuple[Any, Any]:
    return _used(PRESETS[name].run_config().model_dump(mode="json"))


def _used(config: Mapping[str, Any]) -> tuple[Any, Any]:
    """A config's data and availability sections as its run used them: moved fields
    where they live now, only the selected components' own parameters (a component
    registered since, or a stored config from before a field moved, is no difference)."""
    used = used_params(moved(dict(config)), current())
    return used.get("data"), used.get("availability")


def references_for(config: Mapping[str, Any]) -> dict[str, tuple[Reference, ...]]:
    """The reference lines of the preset whose data and availability sections a run's
    stored config has unchanged (its algorithm, rounds, seed or name may differ), {} if
    none has."""
    problem = _used(config)
    for preset in PRESETS.values():
        if preset.references and problem == _used(
            {"data": _problem(preset.name)[0], "availability": _problem(preset.name)[1]}
        ):
            return preset.references
    return {}


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise ConfigError(f"unknown preset {name!r} (known: {known})") from None
