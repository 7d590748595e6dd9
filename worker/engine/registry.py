"""The component registries (algorithms, availability models, system models, datasets,
models) and the decorators that fill them.

A component registers itself where it is defined:

    @algorithm("fedavg", params=FedAvgParams, label="FedAvg")
    class FedAvg(Algorithm): ...

Each entry records the component, its params model, the `file:line` of its
registration and, for a plug-in, its distribution. `RunConfig` is built from the
registries (`worker/engine/config.py`), so the JSON Schema, the form, `--set`, sweeps
and presets pick a new component up with no other change. A registration that cannot
work raises `RegistrationError` naming its `file:line` and the problem.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from worker.engine import metrics
from worker.engine.metrics import MetricSpec
from worker.engine.params import Params
from worker.engine.sections import (
    AlgorithmSection,
    AvailabilitySection,
    DataSection,
    EvalSection,
    ModelSection,
    SystemSection,
)

DataKind = Literal["image", "vector", "regression"]
DataSource = Literal["generated", "bundled", "data_root"]
POOL_PARTITIONS = ("iid", "by_class", "dirichlet", "label_swap", "incongruent")

T = TypeVar("T")
METRIC_NAME_MAX = 64  # the stored series' key (db/models.py: MetricChunk.name)


class RegistrationError(Exception):
    """A component that cannot be registered; the message starts with its file:line."""


@dataclass(frozen=True)
class DatasetFacts:
    """What a dataset declares, so that config checks need no list of names.

    `kind`: image (C, H, W) samples, flat feature vectors, or regression targets (one
    value per sample, FedLaAvg's mean estimation). `source`: generated from the seed,
    bundled with a package, or read from `data.root`. `partitions`: the
    `data.partition` values it supports, the first being what `auto` means. A loader
    that returns a pool (x, y, x_test, y_test) is partitioned by the engine; one that
    returns `FederatedData` partitions itself. `shape`, `train`, `test`: a sample's
    shape and the pool's sizes where they are fixed (the run's estimates use them).
    `population`: whether its `FederatedData` carries the clients' π and λ (a
    `Population`, which availability models may take with `population = dataset`).
    """

    n_classes: int
    kind: DataKind
    source: DataSource
    partitions: tuple[str, ...] = POOL_PARTITIONS
    shape: tuple[int, ...] | None = None
    train: int | None = None
    test: int | None = None
    population: bool = False


@dataclass(frozen=True)
class ModelFacts:
    """The kinds of data (`DatasetFacts.kind`) a model can be trained on; `binary`: it
    outputs one logit, trained with binary cross-entropy, so fits 2-class data only
    (`training/objective.py`)."""

    inputs: tuple[DataKind, ...] = ("image", "vector")
    binary: bool = False


@dataclass(frozen=True)
class Entry:
    """One registered component. `added_metrics`: the catalogue entries its
    registration added (an algorithm's own round metrics)."""

    group: str
    name: str
    component: Any
    params: type[Params] | None
    source: str
    label: str
    distribution: str | None = None
    facts: Any = None
    added_metrics: tuple[str, ...] = ()
    module: str = ""  # where it registered

    @property
    def builtin(self) -> bool:
        return self.module.startswith("worker.engine.")

    @property
    def has_section(self) -> bool:
        """Whether the run config holds its params in a sub-object named after it."""
        return self.params is not None and bool(self.params.model_fields)

    def default_params(self) -> Params | None:
        return None if self.params is None else self.params()


@dataclass
class Registry:
    """Components of one kind by name, in registration order. `section`: the run
    config section that selects one by `selector` (`algorithm.name`); `reserved`: that
    section's own field names, which no component may take."""

    group: str
    section: str
    selector: str
    reserved: frozenset[str]
    entries: dict[str, Entry] = field(default_factory=dict)

    def __contains__(self, name: object) -> bool:
        return name in self.entries

    def __iter__(self) -> Iterator[Entry]:
        return iter(list(self.entries.values()))

    def names(self) -> tuple[str, ...]:
        return tuple(self.entries)

    def get(self, name: str) -> Entry:
        """The entry named `name`; KeyError names the section's selector."""
        try:
            return self.entries[name]
        except KeyError:
            raise KeyError(f"{self.section}.{self.selector}: {name!r} is not registered") from None

    def remove(self, name: str) -> Entry:
        entry = self.entries.pop(name)
        metrics.unregister(entry.added_metrics)
        return entry


ALGORITHMS = Registry(
    "fedwatch.algorithms", "algorithm", "name", frozenset(AlgorithmSection.model_fields)
)
AVAILABILITY = Registry(
    "fedwatch.availability", "availability", "kind", frozenset(AvailabilitySection.model_fields)
)
SYSTEMS = Registry("fedwatch.systems", "system", "kind", frozenset(SystemSection.model_fields))
DATASETS = Registry("fedwatch.datasets", "data", "dataset", frozenset(DataSection.model_fields))
MODELS = Registry("fedwatch.models", "model", "name", frozenset(ModelSection.model_fields))
SCHEDULES = Registry("fedwatch.schedules", "eval", "schedule", frozenset(EvalSection.model_fields))
REGISTRIES = (ALGORITHMS, AVAILABILITY, SYSTEMS, DATASETS, MODELS, SCHEDULES)


def selected(section: Params, registry: Registry) -> tuple[Entry, Any]:
    """The entry of the component `section` selects (by `registry.selector`) and its
    params: the section's sub-object named after it, or its defaults."""
    entry = registry.get(getattr(section, registry.selector))
    params = getattr(section, entry.name) if entry.has_section else entry.default_params()
    return entry, params


_distribution: list[str | None] = [None]


@contextmanager
def loading(distribution: str | None) -> Iterator[None]:
    """Record `distribution` on everything registered inside (the plug-in loader)."""
    _distribution.append(distribution)
    try:
        yield
    finally:
        _distribution.pop()


def snapshot() -> dict[str, tuple[str, ...]]:
    """The names registered now, by group (see `rollback`)."""
    return {r.group: r.names() for r in REGISTRIES}


def rollback(before: dict[str, tuple[str, ...]]) -> None:
    """Remove everything registered since `before`, metrics included."""
    for registry in REGISTRIES:
        for name in registry.names():
            if name not in before[registry.group]:
                registry.remove(name)


def _caller(depth: int) -> tuple[str, str]:
    """`file:line` and module name of the code `depth` calls above the caller."""
    frame = sys._getframe(depth + 1)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}", frame.f_globals.get("__name__", "")


def _check_params(params: Any, where: str) -> None:
    if params is None:
        return
    if not (isinstance(params, type) and issubclass(params, Params)):
        raise RegistrationError(f"{where}: params must be a subclass of Params, got {params!r}")
    required = [n for n, f in params.model_fields.items() if f.is_required()]
    if required:
        raise RegistrationError(
            f"{where}: params field {required[0]!r} has no default (every parameter needs one)"
        )
    try:
        params()
        params.model_json_schema()
    except Exception as err:  # a default its own model rejects, a type with no schema
        raise RegistrationError(f"{where}: invalid params model ({_one_line(err)})") from None


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}".rstrip(": ")


def _metric_specs(component: Any, where: str) -> list[MetricSpec]:
    specs = list(getattr(component, "metrics", ()))
    taken = metrics.by_name()
    new: list[MetricSpec] = []
    for spec in specs:
        if not isinstance(spec, MetricSpec):
            raise RegistrationError(f"{where}: metrics must hold MetricSpec, got {spec!r}")
        if spec.kind != "round":
            raise RegistrationError(f"{where}: metric {spec.name!r} must be a round metric")
        if not spec.name.isidentifier() or len(spec.name) > METRIC_NAME_MAX:
            raise RegistrationError(
                f"{where}: metric name {spec.name!r} must be an identifier of at most "
                f"{METRIC_NAME_MAX} characters"
            )
        if spec.name in taken:
            if taken[spec.name] == spec and spec not in metrics.ROUND_METRICS:
                continue  # the same spec, declared by another algorithm too (memory_filled)
            raise RegistrationError(
                f"{where}: metric {spec.name!r} is already in the catalogue; choose another name"
            )
        new.append(spec)
    return new


def register(
    registry: Registry,
    name: str,
    component: Any,
    *,
    params: type[Params] | None = None,
    label: str | None = None,
    facts: Any = None,
    caller: tuple[str, str] | None = None,
) -> Entry:
    """Add `component` to `registry` under `name` (what the decorators call); `caller`:
    the registration's `file:line` and module (default: the caller's)."""
    source, module = caller or _caller(1)
    where = f"{source}: {registry.section} {name!r}"
    if not (isinstance(name, str) and name.isidentifier()):
        raise RegistrationError(f"{where}: a name must be a Python identifier (a config key)")
    if name in registry:
        raise RegistrationError(
            f"{where}: the name is already registered by {registry.get(name).source}"
        )
    if name in registry.reserved and params is not None and params.model_fields:
        # its params would be the sub-object `<section>.<name>`, where the field is
        raise RegistrationError(f"{where}: the name is a field of {registry.section}")
    _check_params(params, where)
    specs = _metric_specs(component, where) if registry is ALGORITHMS else []
    try:
        metrics.register(specs)
    except ValueError as err:
        raise RegistrationError(f"{where}: {err}") from None
    entry = Entry(
        group=registry.group,
        name=name,
        component=component,
        params=params,
        source=source,
        label=label or name,
        distribution=_distribution[-1],
        facts=facts,
        added_metrics=tuple(s.name for s in specs),
        module=module,
    )
    registry.entries[name] = entry
    return entry


def _decorator(
    registry: Registry, name: str, check: Callable[[Any, str], None], **kw: Any
) -> Callable[[T], T]:
    caller = _caller(2)

    def decorate(component: T) -> T:
        check(component, f"{caller[0]}: {registry.section} {name!r}")
        register(registry, name, component, caller=caller, **kw)
        return component

    return decorate


def _has(*methods: str) -> Callable[[Any, str], None]:
    def check(component: Any, where: str) -> None:
        missing = [m for m in methods if not callable(getattr(component, m, None))]
        if missing:
            raise RegistrationError(f"{where}: {component!r} has no {missing[0]}()")

    return check


def _callable(component: Any, where: str) -> None:
    if not callable(component):
        raise RegistrationError(f"{where}: {component!r} is not callable")


def algorithm(
    name: str, *, params: type[Params] | None = None, label: str | None = None
) -> Callable[[T], T]:
    """Register an `Algorithm` subclass as `algorithm.name = name`, its params under
    `algorithm.<name>`; its `metrics` join the catalogue."""
    return _decorator(ALGORITHMS, name, _has("select", "aggregate"), params=params, label=label)


def availability(
    name: str, *, params: type[Params] | None = None, label: str | None = None
) -> Callable[[T], T]:
    """Register an `Availability` subclass as `availability.kind = name`; the engine
    builds it with `cls.from_params(params, facts)`."""
    return _decorator(AVAILABILITY, name, _has("from_params", "mask"), params=params, label=label)


def system(
    name: str, *, params: type[Params] | None = None, label: str | None = None
) -> Callable[[T], T]:
    """Register a `SystemModel` subclass as `system.kind = name`; the engine builds it
    with `cls.from_params(params, facts)`."""
    return _decorator(SYSTEMS, name, _has("from_params"), params=params, label=label)


def dataset(
    name: str,
    *,
    facts: DatasetFacts,
    params: type[Params] | None = None,
    label: str | None = None,
) -> Callable[[T], T]:
    """Register a loader `load(params, data, rng) -> FederatedData | Pool` as
    `data.dataset = name`, its params under `data.<name>`."""
    return _decorator(DATASETS, name, _callable, params=params, label=label, facts=facts)


def model(
    name: str,
    *,
    facts: ModelFacts | None = None,
    params: type[Params] | None = None,
    label: str | None = None,
) -> Callable[[T], T]:
    """Register a builder `build(params, model, shape, n_classes) -> nn.Module` as
    `model.name = name`, its params under `model.<name>`."""
    return _decorator(
        MODELS, name, _callable, params=params, label=label, facts=facts or ModelFacts()
    )


def schedule(
    name: str, *, params: type[Params] | None = None, label: str | None = None
) -> Callable[[T], T]:
    """Register an evaluation schedule as `eval.schedule = name`: an object with
    `evaluates(params, eval, t) -> bool` (after round t, 0-based) and `initial` (whether
    it evaluates the model before round 0 too)."""
    return _decorator(SCHEDULES, name, _has("evaluates"), params=params, label=label)
