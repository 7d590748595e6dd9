"""What a tune may optimise: a catalogue summary value read on the validation split,
never one of the test set. Its direction is the catalogue's `better`; its intermediate
values, reported round by round for pruning, are the round metric it is the last of."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from worker.engine import LAST_VALUES, ConfigError, MetricSpec, metrics

VALIDATION_PREFIX = "val_"


@dataclass(frozen=True)
class Objective:
    spec: MetricSpec  # the summary value optimised
    round_metric: str  # what each evaluated round reports (`trial.report`)

    @property
    def direction(self) -> Literal["minimize", "maximize"]:
        return "maximize" if self.spec.better == "higher" else "minimize"


def validation_objectives() -> dict[str, str]:
    """Summary value → the validation round metric it is the last value of."""
    return {s: r for s, r in LAST_VALUES.items() if r.startswith(VALIDATION_PREFIX)}


def objective_of(name: str) -> Objective:
    """ConfigError naming `objective` where `name` is no catalogue summary value, or one
    that is not read on the validation split (the test set is for the final runs)."""
    allowed = validation_objectives()
    if name not in allowed:
        summaries = {s.name for s in metrics.catalogue() if s.kind == "summary"}
        why = "is not read on the validation split" if name in summaries else "is unknown"
        raise ConfigError(
            f"objective: {name!r} {why}; a tune optimises one of {', '.join(sorted(allowed))} "
            "(the test set is kept for the final runs)"
        )
    spec = next(s for s in metrics.catalogue() if s.name == name)
    return Objective(spec, allowed[name])
