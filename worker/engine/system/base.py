"""The system-model interface: each client's compute time per sample and link
bandwidths, and optionally its availability in seconds (`Sessions`)."""

from __future__ import annotations

from abc import ABC
from dataclasses import dataclass
from typing import Any

import numpy as np
from torch import Tensor

from worker.engine.errors import ConfigError
from worker.engine.registry import selected, system
from worker.engine.sections import RunSection
from worker.engine.system.sessions import Sessions
from worker.engine.timespan import MAX_SECONDS

NONE = "none"


@dataclass(frozen=True)
class SystemContext:
    """What a system model is built from besides its params: the number of clients,
    the run's seed and the folder of its data files (`data.root`, resolved by the
    service to its place under the server's data root)."""

    n: int
    seed: int
    root: str


class SystemModel(ABC):
    """Per client (N,) float64: `s_per_sample`, the seconds one training sample takes
    (forward and backward); `down_bps` and `up_bps`, its downlink and uplink in bytes
    per second. `sessions`: when each client is online, in seconds, where the model
    says (None: availability stays with the round-based models, a client being there
    for a whole round)."""

    s_per_sample: Tensor
    down_bps: Tensor
    up_bps: Tensor
    sessions: Sessions | None = None

    @classmethod
    def from_params(cls, params: Any, facts: SystemContext) -> SystemModel | None:
        """The model for a run (`cls(params, facts)`); None keeps no clock."""
        return cls(params, facts)  # type: ignore[call-arg]


@system(NONE, label="none (rounds take no time)")
class NoSystem(SystemModel):
    @classmethod
    def from_params(cls, params: Any, facts: SystemContext) -> SystemModel | None:
        return None


@dataclass(frozen=True)
class SystemSpec:
    """What builds a run's system model: its component, params and facts. It pickles (a
    config's class, built from the components, does not), so that the service can build
    the model in a process of its own, where the files it reads cannot take the
    service's memory (`worker/system_check.py`)."""

    kind: str
    component: type[SystemModel]
    params: Any
    facts: SystemContext

    @property
    def timed(self) -> bool:
        """Whether the run has a system model (a clock): a kind other than `none`."""
        return self.kind != NONE

    def build(self) -> SystemModel | None:
        """The model (None: no clock); ConfigError for files it cannot use, and for a
        client whose sample or byte would take the clock outside its range."""
        model = self.component.from_params(self.params, self.facts)
        if model is not None:
            field = f"system.{self.kind}"
            per_byte = {"downlink": model.down_bps, "uplink": model.up_bps}
            _within_clock(field, "a training sample", model.s_per_sample)
            for link, bps in per_byte.items():
                with np.errstate(divide="ignore"):
                    _within_clock(field, f"a byte on its {link}", 1 / bps.numpy())
        return model


def system_spec(config: RunSection, n_clients: int, root: str) -> SystemSpec:
    """What builds the system model `config` selects for `n_clients` clients, its files
    read from the data folder `root`."""
    entry, params = selected(config.system, config.components.systems)
    facts = SystemContext(n_clients, config.seed, root)
    return SystemSpec(config.system.kind, entry.component, params, facts)


def build_system(config: RunSection, n_clients: int, root: str) -> SystemModel | None:
    """The system model `config` selects for `n_clients` clients, its files read from
    the data folder `root` (None: no clock; errors: `SystemSpec.build`)."""
    return system_spec(config, n_clients, root).build()


def _within_clock(field: str, what: str, seconds: Tensor | np.ndarray) -> None:
    """ConfigError naming the first client whose `seconds` for `what` are not a time of
    the clock (`timespan.py`): not finite, negative, or past `MAX_SECONDS`."""
    values = np.asarray(seconds, dtype=np.float64)
    bad = np.flatnonzero(~((values >= 0) & (values <= MAX_SECONDS)))
    if len(bad):
        client = int(bad[0])
        raise ConfigError(
            f"{field}: client {client} takes {values[client]:g} s for {what}, outside the "
            f"clock's range [0, {MAX_SECONDS:g}] s"
        )
