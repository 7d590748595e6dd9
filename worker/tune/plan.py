"""A service tune's request as stored (`Tune.spec`): the preset and its methods, the
space in the command's syntax, the budget, the objective and the study's settings; and
the configs of its trials and final runs, built from it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from worker.engine import ConfigError, RunConfig
from worker.presets import Method, Preset, get_preset
from worker.tune.objective import objective_of
from worker.tune.space import Dimension, assignments, parse_dimension
from worker.tune.study import Pruner, Sampler, TuneSpec

TUNE_KEYS = frozenset({"seed", "eval.validation"})  # set by the tune, never searched


@dataclass(frozen=True)
class TunePlan:
    """`space`: `key=kind:...` texts (`worker.tune.space`); `trials`: finished trials a
    method; `seeds`: fresh final seeds a method; `parallel`: trials of one method in
    flight at once; `set`: `key=value` assignments applied to every run."""

    preset: str
    methods: tuple[str, ...]
    space: tuple[str, ...]
    trials: int
    seeds: int
    objective: str = "final_val_acc"
    validation: float = 0.2
    sampler: Sampler = "tpe"
    sampler_seed: int = 0
    grid_points: int = 5
    pruner: Pruner = "median"
    prune_after: int = 5
    parallel: int = 2
    set: tuple[str, ...] = field(default_factory=tuple)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TunePlan:
        tuples: dict[str, Any] = {k: tuple(data[k]) for k in ("methods", "space", "set")}
        return cls(**(data | tuples))

    def to_json(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @property
    def dimensions(self) -> tuple[Dimension, ...]:
        """The space; ConfigError naming the key of a bad, repeated or reserved range."""
        dims = tuple(parse_dimension(text) for text in self.space)
        keys = [d.key for d in dims]
        for key in keys:
            if keys.count(key) > 1:
                raise ConfigError(f"{key}: searched twice")
            if key in TUNE_KEYS:
                raise ConfigError(f"{key}: set by the tune, not searched")
        return dims

    def spec(self) -> TuneSpec:
        return TuneSpec(
            space=self.dimensions,
            trials=self.trials,
            objective=objective_of(self.objective),
            sampler=self.sampler,
            sampler_seed=self.sampler_seed,
            grid_points=self.grid_points,
            pruner=self.pruner,
            prune_after=self.prune_after,
        )

    @property
    def base(self) -> Preset:
        return get_preset(self.preset)

    def method(self, name: str) -> Method:
        """The preset's method of that name, else the algorithm of that name."""
        found = {m.name: m for m in self.base.compare}
        return found.get(name) or Method(name)

    def trial_config(self, method: str, params: dict[str, Any]) -> RunConfig:
        """A trial: the method with `params`, on the tuning seed 0 and the validation split."""
        extra = [*assignments(params), f"eval.validation={self.validation}", "seed=0"]
        return self._config(method, extra)

    def final_config(self, method: str, params: dict[str, Any], seed: int) -> RunConfig:
        """A final run: the method's chosen `params` on the whole training data."""
        return self._config(method, [*assignments(params), "eval.validation=0", f"seed={seed}"])

    def final_seeds(self) -> list[int]:
        """Fresh seeds, after the tuning one."""
        return list(range(1, 1 + self.seeds))

    def _config(self, method: str, extra: list[str]) -> RunConfig:
        sets = [*self.method(method).as_overrides(), *self.set, *extra]
        return self.base.run_config(sets)
