"""`RunConfig`: the single, JSON-serialisable description of a simulation run, built
from the components (`registry.Components`).

Its JSON Schema generates the web form; dotted paths into it (`algorithm.name`,
`availability.markov.g`) are what `--set key=value` and sweeps address. The selectors
(`algorithm.name`, `availability.kind`, `system.kind`, `data.dataset`, `model.name`)
take the registered names, and every component with params has its sub-object named
after it (`algorithm.<name>.<param>`, `availability.<kind>.<param>`,
`system.<kind>.<param>`, `data.<name>.<param>`, `model.<name>.<param>`), so switching a
selector never leaves an invalid field behind.

`RunConfig` here is the class every config is an instance of; the class that validates
data is the one `build_run_config` makes from a `Components` object, a subclass that
narrows the selectors and adds the sub-objects (`run_config_for(current())`).
Importing this module builds nothing and loads no plug-in.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import (
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    create_model,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from worker.engine.facts import DatasetFacts, ModelFacts, without_data
from worker.engine.moved import moved, moved_section
from worker.engine.params import Params, RunShape, applies
from worker.engine.privacy.checks import privacy_checks
from worker.engine.registry import PARTITION, Components, Registry, selected
from worker.engine.sections import (
    FROM_DATA_ROOT,
    MAX_SEED,
    TIMED,
    AlgorithmSection,
    AvailabilitySection,
    Built,
    ClientConfig,
    DataSection,
    EvalSection,
    ModelSection,
    RoundConfig,
    RunSection,
    ServerConfig,
    SystemSection,
)

__all__ = [
    "MAX_SEED",
    "ClientConfig",
    "RoundConfig",
    "RunConfig",
    "ServerConfig",
    "build_run_config",
    "run_config_for",
    "section_class",
]

S = TypeVar("S", bound=Params)


class _Data(DataSection):
    @model_validator(mode="before")
    @classmethod
    def _moved(cls, data: Any) -> Any:
        return moved_section("data", data)  # a data section given alone (tests, the engine)

    @model_validator(mode="after")
    def _resolve_partition(self) -> _Data:
        if self.partition == "auto" and self.dataset in self.components.datasets:
            facts: DatasetFacts = self.components.datasets.get(self.dataset).facts
            object.__setattr__(self, "partition", facts.auto)
        return self


# The fields each cross-field check reads (a path covers the fields under it).
_SHAPE_FIELDS = (
    "data.n_clients",
    "algorithm.participation",
    "algorithm.name",
    "availability.kind",
    "system.kind",
    "data.dataset",
    "data.partition",
    "model.name",
    "rounds",
    "client.local_steps",
    "client.unit",
)


# A config with more field errors than this gets only those: what the cross-field checks
# would add is lost among them, and each error costs the pass a copy and a lookup.
CROSS_CHECKED_ERRORS = 100


def _involves(reads: tuple[str, ...], failed: frozenset[str], held: frozenset[str]) -> bool:
    """Whether a check reading `reads` reads a failed field: a read path that is a failed
    path, lies under one, or holds one (`held`: the failed paths' prefixes). Set lookups,
    so thousands of failed fields cost no more than their errors."""
    return any(r in held or not failed.isdisjoint(_prefixes(r)) for r in reads)


def _prefixes(path: str) -> list[str]:
    """`a.b.c` → `a`, `a.b`, `a.b.c`."""
    parts = path.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


class RunConfig(RunSection):
    """A run's config; validated by the class `build_run_config` makes from it."""

    components: ClassVar[Components]

    @model_validator(mode="wrap")
    @classmethod
    def _every_error(cls, data: Any, handler: ModelWrapValidatorHandler[RunConfig]) -> RunConfig:
        """Every error at once: where fields fail their own validation, the cross-field
        checks still run, on the config with those fields left at their defaults, and
        those that read none of the failed fields add their errors. (The `after`
        validator `_consistent` runs outside this one, on a config that validated.)"""
        data = moved(data)  # fields stored under their old paths (`moved.py`)
        try:
            return handler(data)
        except ValidationError as err:
            if not isinstance(data, dict) or err.error_count() > CROSS_CHECKED_ERRORS:
                raise
            errors = err.errors(include_url=False)
            if any(not e["loc"] for e in errors):
                raise
            failed = frozenset(filter(None, (_given_path(data, e["loc"]) for e in errors)))
            try:
                extra = handler(_without(data, failed)).cross_field_problems(failed)
            except ValidationError:
                extra = []
            if not extra:
                raise
            details = [
                InitErrorDetails(
                    type=PydanticCustomError(e["type"], e["msg"]), loc=e["loc"], input=e["input"]
                )
                for e in errors
            ]
            raise ValidationError.from_exception_data(
                cls.__name__, details + _value_errors(extra, data)
            ) from None

    @model_validator(mode="after")
    def _consistent(self) -> RunConfig:
        problems = self.cross_field_problems()
        if problems:
            raise ValidationError.from_exception_data(
                type(self).__name__, _value_errors(problems, self)
            )
        return self

    def cross_field_problems(self, failed: frozenset[str] = frozenset()) -> list[str]:
        """What every cross-field check finds wrong (`<dotted.path>: <problem>` each),
        leaving out the checks that read a field in `failed`."""
        checks: list[tuple[tuple[str, ...], Callable[[], None]]] = [
            (("algorithm.participation", "data.n_clients"), lambda: _check_participation(self)),
            *_data_checks(self),
            (("model.name", "data.dataset"), lambda: _check_model(self)),
            *_time_checks(self),
            *privacy_checks(self),
        ]
        shape = run_shape(self)
        c = self.components
        for section, registry in (
            (self.algorithm, c.algorithms),
            (self.availability, c.availability),
            (self.system, c.systems),
            (self.data, c.datasets),
            (self.data, c.partitions),
            (self.model, c.models),
        ):
            entry, params = selected(section, registry)
            if params is not None:
                own = (
                    f"{registry.section}.{registry.selector}",
                    f"{registry.section}.{entry.name}",
                )
                checks.append(((*_SHAPE_FIELDS, *own), partial(params.check_run, shape)))
        out: list[str] = []
        held = frozenset(p for f in failed for p in _prefixes(f))
        for reads, check in checks:
            if _involves(reads, failed, held):
                continue
            try:
                check()
            except ValueError as err:
                out.append(str(err))
        return out


def _value_errors(problems: list[str], data: Any) -> list[InitErrorDetails]:
    """Root-level value errors, one per problem (their path leads the message)."""
    return [
        InitErrorDetails(
            type=PydanticCustomError("value_error", "Value error, {problem}", {"problem": p}),
            loc=(),
            input=data,
        )
        for p in problems
    ]


def _given_path(data: dict[str, Any], loc: tuple[int | str, ...]) -> str:
    """The dotted path of the given field an error is about: its location, down to the
    list or value it lies in (`data.mean_estimation.means` for an error at
    `data.mean_estimation.means.3`)."""
    keys: list[str] = []
    node: Any = data
    for part in loc:
        if not isinstance(node, dict) or not isinstance(part, str) or part not in node:
            break
        keys.append(part)
        node = node[part]
    return ".".join(keys)


def _without(data: dict[str, Any], paths: frozenset[str]) -> dict[str, Any]:
    """A copy of `data` without the fields at these dotted paths."""
    out = copy.deepcopy(data)
    for path in paths:
        *parents, last = path.split(".")
        node: Any = out
        for key in parents:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(last, None)
    return out


def run_shape(c: RunConfig) -> RunShape:
    """The run as the components' `check_run` hooks see it."""
    return RunShape(
        n_clients=c.data.n_clients,
        k=c.n_selected(),
        rounds=c.rounds,
        algorithm=c.algorithm.name,
        availability=c.availability.kind,
        dataset=c.data.dataset,
        data=dataset_facts(c),
        partition=c.data.partition,
        model=c.model.name,
        local_steps=c.client.local_steps,
        local_unit=c.client.unit,
        system=c.system.kind,
    )


def dataset_facts(c: RunConfig) -> DatasetFacts:
    """The dataset's facts, with a population where the partition draws one (CA-Fed's
    incongruent split), and the kind of its samples where its parameters declare it
    (`hf`'s `data.hf.kind`: the same loader reads images, numbers or text) with the
    token ids its text uses (`tokens`)."""
    facts: DatasetFacts = c.components.datasets.get(c.data.dataset).facts
    split = c.components.partitions.get(c.data.partition).component
    params = selected(c.data, c.components.datasets)[1]
    return replace(
        facts,
        population=facts.population or split.population,
        kind=getattr(params, "kind", facts.kind),
        tokens=getattr(params, "tokens", facts.tokens),
    )


def _check_participation(c: RunConfig) -> None:
    if c.components.algorithms.get(c.algorithm.name).runs_async:
        return  # its own concurrency says how many train
    if c.algorithm.participation >= 1 and c.n_selected() > c.data.n_clients:
        raise ValueError(
            f"algorithm.participation: K = {c.n_selected()} exceeds "
            f"data.n_clients = {c.data.n_clients}"
        )


def _data_checks(c: RunConfig) -> list[tuple[tuple[str, ...], Callable[[], None]]]:
    """The checks of the data section, each with the fields it reads."""
    d = c.data
    datasets = c.components.datasets

    def partition() -> None:
        facts: DatasetFacts = datasets.get(d.dataset).facts
        if d.partition in facts.partitions or (facts.pooled and _splits_pools(c, d.partition)):
            return
        names = facts.partitions or tuple(
            e.name for e in c.components.partitions if e.component.pools
        )
        raise ValueError(
            f"data.partition: {d.dataset} supports {', '.join(map(repr, names))}, "
            f"not {d.partition!r}"
        )

    def samples() -> None:
        # A pool of a known size, split among the clients: each needs a row at least.
        facts: DatasetFacts = datasets.get(d.dataset).facts
        if facts.train is None or not facts.pooled:
            return
        n_train = min(facts.train, d.max_train_samples or facts.train)
        if d.n_clients > n_train:
            raise ValueError(without_data(d.n_clients, n_train))

    return [
        (("data.dataset", "data.partition"), partition),
        (("data.dataset", "data.partition", "data.n_clients", "data.max_train_samples"), samples),
    ]


def _splits_pools(c: RunConfig, name: str) -> bool:
    partitions = c.components.partitions
    return name in partitions and bool(partitions.get(name).component.pools)


def _time_checks(c: RunConfig) -> list[tuple[tuple[str, ...], Callable[[], None]]]:
    """The checks of the fields that need a system model's clock."""
    timeless = c.system.kind == "none"
    algorithms = c.components.algorithms

    def needs_clock(path: str, value: Any, default: Any) -> Callable[[], None]:
        def check() -> None:
            if timeless and value != default:
                raise ValueError(
                    f"{path}: needs simulated time; choose a system model (system.kind)"
                )

        return check

    def central() -> None:
        if not timeless and _trainees(algorithms, c.algorithm.name) == "central":
            raise ValueError(
                f"system.kind: {c.algorithm.name} trains centrally, outside simulated time; "
                "use system.kind=none"
            )

    def sampled() -> None:
        trainees = _trainees(algorithms, c.algorithm.name)
        if c.round.over_commit and trainees != "sample":
            raise ValueError(
                f"round.over_commit: {c.algorithm.name} trains every available client it "
                "keeps, not a sample of K; over-commitment needs an algorithm that samples K"
            )

    def rounds() -> None:
        if not algorithms.get(c.algorithm.name).runs_async:
            return
        for path, value, default in (
            ("round.deadline_s", c.round.deadline_s, None),
            ("round.over_commit", c.round.over_commit, 0.0),
        ):
            if value != default:
                raise ValueError(
                    f"{path}: {c.algorithm.name} runs asynchronously, without rounds to "
                    "cut; leave it unset"
                )

    return [
        (("algorithm.name", "round.deadline_s", "round.over_commit"), rounds),
        (
            ("round.deadline_s", "system.kind"),
            needs_clock("round.deadline_s", c.round.deadline_s, None),
        ),
        (
            ("round.over_commit", "system.kind"),
            needs_clock("round.over_commit", c.round.over_commit, 0.0),
        ),
        (
            ("client.partial_work", "system.kind"),
            needs_clock("client.partial_work", c.client.partial_work, "drop"),
        ),
        (("algorithm.name", "system.kind"), central),
        (("algorithm.name", "round.over_commit"), sampled),
    ]


def _trainees(algorithms: Registry, name: str) -> str:
    """Who an algorithm trains (its footprint): a sample, every available client, or
    one central client."""
    return str(algorithms.get(name).component.footprint.trainees)


def _check_model(c: RunConfig) -> None:
    data = dataset_facts(c)
    fits: ModelFacts = c.components.models.get(c.model.name).facts
    if data.kind not in fits.inputs:
        declared = hasattr(selected(c.data, c.components.datasets)[1], "kind")
        raise ValueError(
            f"model.name: {c.model.name} needs {' or '.join(fits.inputs)} data; "
            f"{c.data.dataset} is {data.kind} data"
            + (f" (data.{c.data.dataset}.kind sets what its samples are)" if declared else "")
        )
    if fits.binary and data.n_classes != 2:
        raise ValueError(
            f"model.name: {c.model.name} needs a 2-class dataset; "
            f"{c.data.dataset} has {data.n_classes}"
        )


def _section(name: str, base: type[Params], components: Components, *registries: Registry) -> Any:
    """`base` with the selector of each of `registries` narrowed to its registered names
    (their labels in the schema's `x-labels`), plus one sub-object per component whose
    params have fields."""
    fields: dict[str, Any] = {}
    for registry in registries:
        fields.update(_selector(base, registry, components))
        fields.update(
            {
                e.name: (e.params, Field(default_factory=e.params))  # type: ignore[arg-type]
                for e in sorted(registry, key=lambda e: e.name)
                if e.has_section
            }
        )
    built = create_model(
        name, __base__=base, __doc__=_doc(base), **_resolved(base, components), **fields
    )
    return _knowing(components, built)


def _doc(base: type[Params]) -> str | None:
    """The docstring of the section `base` is (`_Data`'s is `DataSection`'s): a class
    made by `create_model` has none of its own, and pydantic writes a class's docstring
    into its schema's description, which the form shows under the section's title."""
    return next(k for k in base.__mro__ if k.__module__ == Built.__module__).__doc__


def _selector(base: type[Params], registry: Registry, components: Components) -> dict[str, Any]:
    """The selector field of `registry` in `base`, narrowed to the registered names (and
    `auto` first for partitions, with the one it means for each dataset in `x-auto`)."""
    selector = copy.copy(base.model_fields[registry.selector])
    labels: dict[str, Any] = {e.name: e.label for e in sorted(registry, key=lambda e: e.name)}
    extra = selector.json_schema_extra if isinstance(selector.json_schema_extra, dict) else {}
    names = tuple(sorted(registry.names()))
    if registry.kind is PARTITION:
        names = ("auto", *names)
        labels = {"auto": "the dataset's own", **labels}
        extra = {
            **extra,
            "x-auto": {"data.dataset": {e.name: e.facts.auto for e in components.datasets}},
        }
    names = names or ("",)  # a Literal needs one value at least
    # what the form shows; `enum` also where one name gives the schema a `const`
    selector.json_schema_extra = {**extra, "x-labels": labels, "enum": list(names)}
    return {registry.selector: (Literal[names], selector)}


def _knowing(components: Components, cls: Any) -> Any:
    """`cls`, which now knows the components it was built from."""
    cls.components = components
    return cls


def _resolved(base: type[Params], components: Components) -> dict[str, Any]:
    """`base`'s fields whose form hint depends on the components (`sections.TIMED`,
    `sections.FROM_DATA_ROOT`), with the hint they give now: the names they apply to."""
    systems = sorted(n for n in components.systems.names() if n != "none")
    rooted = sorted(e.name for e in components.datasets if e.facts.source == "data_root")
    hints = (
        (TIMED, applies("system.kind", *systems)),
        (FROM_DATA_ROOT, applies("data.dataset", *rooted)),
    )
    out: dict[str, Any] = {}
    for key, info in base.model_fields.items():
        hint = next((h for marker, h in hints if info.json_schema_extra is marker), None)
        if hint is not None:
            resolved = copy.copy(info)
            resolved.json_schema_extra = hint
            out[key] = (info.annotation, resolved)
    return out


def _params(name: str, base: type[Params], components: Components) -> Any:
    """A section with no component to narrow to: its form hints resolved."""
    return create_model(name, __base__=base, __doc__=_doc(base), **_resolved(base, components))


def run_config_for(components: Components) -> type[RunConfig]:
    """`RunConfig`'s class for `components`: the registered names, and one params
    sub-object per component with params. Built once, and again after a component is
    taken in (`Components.built`)."""
    built: type[RunConfig] | None = components.built.get("run_config")
    if built is None:
        built = components.built["run_config"] = build_run_config(components)
    return built


def section_class(components: Components, base: type[S]) -> type[S]:
    """The class `run_config_for(components)` holds a section of `base`'s in
    (`DataSection` → the data section, with its dataset names and sub-objects)."""
    for info in run_config_for(components).model_fields.values():
        cls = info.annotation
        if isinstance(cls, type) and issubclass(cls, base):
            return cls
    raise KeyError(f"no section of {base.__name__}")


def build_run_config(components: Components) -> type[RunConfig]:
    """`RunConfig`'s class for `components`, built anew (`run_config_for` keeps it)."""
    sections = {
        "data": _section(
            "DataConfig", _Data, components, components.datasets, components.partitions
        ),
        "model": _section("ModelConfig", ModelSection, components, components.models),
        "availability": _section(
            "AvailabilityConfig", AvailabilitySection, components, components.availability
        ),
        "system": _section("SystemConfig", SystemSection, components, components.systems),
        "algorithm": _section(
            "AlgorithmConfig", AlgorithmSection, components, components.algorithms
        ),
        "eval": _section("EvalConfig", EvalSection, components, components.schedules),
        "client": _params("ClientConfig", ClientConfig, components),
        "round": _params("RoundConfig", RoundConfig, components),
    }
    fields: dict[str, Any] = {
        key: (cls, Field(default_factory=cls)) for key, cls in sections.items()
    }
    run: type[RunConfig] = _knowing(
        components, create_model("RunConfig", __base__=RunConfig, **fields)
    )
    return run
