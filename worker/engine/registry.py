"""The kinds of component (algorithms, availability models, system models, datasets,
partitions, models, evaluation schedules), the decorators that declare them, the
registry of one kind, and `Components`: one registry of each kind, with what the
plug-ins gave (`PluginReport`).

A component declares itself where it is defined:

    @algorithm("fedavg", params=FedAvgParams, label="FedAvg")
    class FedAvg(Algorithm): ...

A declaration registers nothing: it records the component, its params model and the
`file:line` of the declaration. A `Components` object, built once at start-up by the
command line, the API and the workers (`components.py`), or by a test with exactly the
components it wants, takes declarations in, and `RunConfig`'s class is built from it
(`config.run_config_for`),
so the JSON Schema, the form, `--set`, sweeps and presets pick a new component up with
no other change. A declaration that cannot work raises `RegistrationError` naming its
`file:line` and the problem.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fedwatch.limits import COMPONENT_NAME_MAX, METRIC_NAME_MAX
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
    nothing; a `Components` object takes it in."""

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
    """An algorithm's own round metrics (its `metric_specs`) that are new to the catalogue
    with `registered`; raises RegistrationError on a spec that is not a round metric, a
    bad name or a clash."""
    specs = list(getattr(component, "metric_specs", ()))
    taken = metrics.by_name(registered)
    new: list[MetricSpec] = []
    for spec in specs:
        if not isinstance(spec, MetricSpec):
            raise RegistrationError(f"{where}: metric_specs must hold MetricSpec, got {spec!r}")
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
    if len(name) > COMPONENT_NAME_MAX:
        raise RegistrationError(
            f"{where}: a name has at most {COMPONENT_NAME_MAX} characters (a run stores it), "
            f"not {len(name)}"
        )
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
    `algorithm.<name>`; its `metric_specs` join the catalogue."""
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


@dataclass(frozen=True)
class Loaded:
    """A component a plug-in registered: its group, name, declaration `file:line`
    and distribution (`name version`)."""

    group: str
    name: str
    source: str
    distribution: str | None


@dataclass(frozen=True)
class Failed:
    """An entry point that was skipped (`group:name = module:attr`), and why."""

    entry_point: str
    distribution: str | None
    reason: str


@dataclass
class PluginReport:
    """What `load_plugins` loaded and skipped."""

    loaded: list[Loaded] = field(default_factory=list)
    failed: list[Failed] = field(default_factory=list)


@dataclass
class Components:
    """One registry per kind of component, and the round metrics its algorithms add to
    the catalogue. `plugins`: what loading the installed plug-ins gave (empty where they
    were not loaded). `RunConfig`'s class for them is `config.run_config_for(...)`."""

    algorithms: Registry = field(default_factory=lambda: Registry(ALGORITHM))
    availability: Registry = field(default_factory=lambda: Registry(AVAILABILITY))
    systems: Registry = field(default_factory=lambda: Registry(SYSTEM))
    datasets: Registry = field(default_factory=lambda: Registry(DATASET))
    partitions: Registry = field(default_factory=lambda: Registry(PARTITION))
    models: Registry = field(default_factory=lambda: Registry(MODEL))
    schedules: Registry = field(default_factory=lambda: Registry(SCHEDULE))
    round_metrics: list[MetricSpec] = field(default_factory=list)
    plugins: PluginReport = field(default_factory=PluginReport)
    # What is built from them (`config.run_config_for`), until one more is taken in.
    built: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, *taken: Declaration | Any) -> Components:
        """Components of exactly these: declarations, or components declared once."""
        return cls().include(*taken)

    def include(self, *taken: Declaration | Any) -> Components:
        """These too (declarations, or components declared once); returns self."""
        for item in taken:
            self.add(item if isinstance(item, Declaration) else _declaration_of(item))
        return self

    @property
    def registries(self) -> tuple[Registry, ...]:
        return (
            self.algorithms,
            self.availability,
            self.systems,
            self.datasets,
            self.partitions,
            self.models,
            self.schedules,
        )

    def registry(self, kind: Kind) -> Registry:
        return next(r for r in self.registries if r.kind is kind)

    def add(self, declaration: Declaration, distribution: str | None = None) -> Entry:
        """Take a declaration in; raises RegistrationError, with nothing taken, where its
        name is taken or its metrics clash with the catalogue's."""
        target = self.registry(declaration.kind)
        name, where = declaration.name, declaration.where
        for held in self._namesakes(declaration.kind):
            if name in held:
                raise RegistrationError(
                    f"{where}: the name is already registered by {held.get(name).source}"
                )
        specs = (
            metric_specs(declaration.component, where, self.round_metrics)
            if declaration.kind is ALGORITHM
            else []
        )
        entry = Entry(
            group=target.group,
            name=name,
            component=declaration.component,
            params=declaration.params,
            source=declaration.source,
            label=declaration.label,
            distribution=distribution,
            facts=declaration.facts,
            added_metrics=tuple(s.name for s in specs),
            module=declaration.module,
        )
        target.entries[name] = entry
        self.round_metrics.extend(specs)
        self.built.clear()  # built again from what is here now
        return entry

    def _namesakes(self, kind: Kind) -> list[Registry]:
        """The registries a component of `kind` must not share a name with: its own, and
        those whose params live in the same section (`data.<name>`: datasets and
        partitions)."""
        return [r for r in self.registries if r.kind is kind or r.section == kind.section]


def _declaration_of(component: Any) -> Declaration:
    found = [d for d in declared() if d.component is component]
    if len(found) != 1:
        raise RegistrationError(
            f"{component!r} is declared {len(found)} times; pass the declaration itself"
        )
    return found[0]
