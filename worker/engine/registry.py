"""The kinds of component (algorithms, availability models, system models, datasets,
partitions, models, evaluation schedules), the decorators that declare them, and the registry of one
kind.

A component declares itself where it is defined:

    @algorithm("fedavg", params=FedAvgParams, label="FedAvg")
    class FedAvg(Algorithm): ...

A declaration registers nothing: it records the component, its params model and the
`file:line` of the declaration. A `Components` object (`components.py`), built once at
start-up by the command line, the API and the workers, or by a test with exactly the
components it wants, takes declarations in, and `RunConfig`'s class is built from it,
so the JSON Schema, the form, `--set`, sweeps and presets pick a new component up with
no other change. A declaration that cannot work raises `RegistrationError` naming its
`file:line` and the problem.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from worker.engine import metrics
from worker.engine.facts import DatasetFacts, ModelFacts
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

T = TypeVar("T")
METRIC_NAME_MAX = 64  # the stored series' key (db/models.py: MetricChunk.name)


class RegistrationError(Exception):
    """A component that cannot be registered; the message starts with its file:line."""


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

    @property
    def runs_async(self) -> bool:
        """Whether the loop runs the component in async mode: an algorithm that says so
        (`Algorithm.asynchronous`, set by `AsyncAlgorithm`); no other kind does."""
        return getattr(self.component, "asynchronous", False) is True


@dataclass(frozen=True)
class Kind:
    """A kind of component: its entry point group, and the run config section that
    selects one by `selector` (`algorithm.name`); `reserved`: that section's own field
    names, which no component may take."""

    group: str
    section: str
    selector: str
    reserved: frozenset[str]


ALGORITHM = Kind(
    "fedwatch.algorithms", "algorithm", "name", frozenset(AlgorithmSection.model_fields)
)
AVAILABILITY = Kind(
    "fedwatch.availability", "availability", "kind", frozenset(AvailabilitySection.model_fields)
)
SYSTEM = Kind("fedwatch.systems", "system", "kind", frozenset(SystemSection.model_fields))
DATASET = Kind("fedwatch.datasets", "data", "dataset", frozenset(DataSection.model_fields))
# Partitions share the data section with the datasets: their params are `data.<name>` too.
PARTITION = Kind("fedwatch.partitions", "data", "partition", frozenset(DataSection.model_fields))
MODEL = Kind("fedwatch.models", "model", "name", frozenset(ModelSection.model_fields))
SCHEDULE = Kind("fedwatch.schedules", "eval", "schedule", frozenset(EvalSection.model_fields))
KINDS = (ALGORITHM, AVAILABILITY, SYSTEM, DATASET, PARTITION, MODEL, SCHEDULE)


@dataclass(frozen=True)
class Declaration:
    """What a decorator declared: a component of a kind under a name. It registers
    nothing; a `Components` object (`components.py`) takes it in."""

    kind: Kind
    name: str
    component: Any
    params: type[Params] | None
    label: str
    facts: Any
    source: str  # `file:line` of the declaration
    module: str

    @property
    def where(self) -> str:
        return f"{self.source}: {self.kind.section} {self.name!r}"


# Every declaration made in this process, in order: a log of what the imported modules
# declare, which the `Components` builders read. Nothing is built from it on import.
_declared: list[Declaration] = []


def declared(start: int = 0) -> list[Declaration]:
    """The declarations made so far (from the `start`-th on)."""
    return _declared[start:]


@dataclass
class Registry:
    """Components of one kind by name, in the order they were taken in."""

    kind: Kind
    entries: dict[str, Entry] = field(default_factory=dict)

    @property
    def group(self) -> str:
        return self.kind.group

    @property
    def section(self) -> str:
        return self.kind.section

    @property
    def selector(self) -> str:
        return self.kind.selector

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


def selected(section: Params, registry: Registry) -> tuple[Entry, Any]:
    """The entry of the component `section` selects (by `registry.selector`) and its
    params: the section's sub-object named after it, or its defaults."""
    entry = registry.get(getattr(section, registry.selector))
    params = getattr(section, entry.name) if entry.has_section else entry.default_params()
    return entry, params


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


def metric_specs(component: Any, where: str, registered: list[MetricSpec]) -> list[MetricSpec]:
    """An algorithm's own round metrics (its `metrics`) that are new to the catalogue
    with `registered`; raises RegistrationError on a spec that is not a round metric, a
    bad name or a clash."""
    specs = list(getattr(component, "metrics", ()))
    taken = metrics.by_name(registered)
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
    try:
        metrics.check_new(new, registered)
    except ValueError as err:
        raise RegistrationError(f"{where}: {err}") from None
    return new


def declare(
    kind: Kind,
    name: str,
    component: Any,
    *,
    params: type[Params] | None = None,
    label: str | None = None,
    facts: Any = None,
    caller: tuple[str, str] | None = None,
) -> Declaration:
    """Declare `component` as a `kind` named `name` (what the decorators call); `caller`:
    the declaration's `file:line` and module (default: the caller's). Checks what can
    be checked without the other components; `Components.add` checks the rest."""
    source, module = caller or _caller(1)
    where = f"{source}: {kind.section} {name!r}"
    if not (isinstance(name, str) and name.isidentifier()):
        raise RegistrationError(f"{where}: a name must be a Python identifier (a config key)")
    if name == "auto" and kind is PARTITION:
        raise RegistrationError(f"{where}: auto is the dataset's own partition")
    if name in kind.reserved and params is not None and params.model_fields:
        # its params would be the sub-object `<section>.<name>`, where the field is
        raise RegistrationError(f"{where}: the name is a field of {kind.section}")
    _check_params(params, where)
    if kind is ALGORITHM:
        metric_specs(component, where, [])
    declaration = Declaration(kind, name, component, params, label or name, facts, source, module)
    _declared.append(declaration)
    return declaration


def _decorator(
    kind: Kind, name: str, check: Callable[[Any, str], None], **kw: Any
) -> Callable[[T], T]:
    caller = _caller(2)

    def decorate(component: T) -> T:
        check(component, f"{caller[0]}: {kind.section} {name!r}")
        declare(kind, name, component, caller=caller, **kw)
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
    return _decorator(ALGORITHM, name, _has("select", "aggregate"), params=params, label=label)


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
    return _decorator(SYSTEM, name, _has("from_params"), params=params, label=label)


def dataset(
    name: str,
    *,
    facts: DatasetFacts,
    params: type[Params] | None = None,
    label: str | None = None,
) -> Callable[[T], T]:
    """Register a loader `load(params, data, rng) -> FederatedData | Pool` as
    `data.dataset = name`, its params under `data.<name>`."""
    return _decorator(DATASET, name, _callable, params=params, label=label, facts=facts)


def partition(
    name: str, *, params: type[Params] | None = None, label: str | None = None
) -> Callable[[T], T]:
    """Register a `Partition` subclass as `data.partition = name`, its params under
    `data.<name>`; the engine calls `cls().split(params, pool, data, n_classes, rng)`."""
    return _decorator(PARTITION, name, _has("split"), params=params, label=label)


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
        MODEL, name, _callable, params=params, label=label, facts=facts or ModelFacts()
    )


def schedule(
    name: str, *, params: type[Params] | None = None, label: str | None = None
) -> Callable[[T], T]:
    """Register an evaluation schedule as `eval.schedule = name`: an object with
    `evaluates(params, eval, t) -> bool` (after round t, 0-based) and `initial` (whether
    it evaluates the model before round 0 too)."""
    return _decorator(SCHEDULE, name, _has("evaluates"), params=params, label=label)
