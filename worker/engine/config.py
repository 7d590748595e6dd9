"""`RunConfig`: the single, JSON-serialisable description of a simulation run, built
from the component registries.

Its JSON Schema generates the web form; dotted paths into it (`algorithm.name`,
`availability.markov.g`) are what `--set key=value` and sweeps address. The selectors
(`algorithm.name`, `availability.kind`, `system.kind`, `data.dataset`, `model.name`)
take the registered names, and every component with params has its sub-object named
after it (`algorithm.<name>.<param>`, `availability.<kind>.<param>`,
`system.<kind>.<param>`, `data.<name>.<param>`, `model.<name>.<param>`), so switching a
selector never leaves an invalid field behind.

Importing this module registers the built-in components and loads the plug-ins of
the installed distributions (`plugins.py`), once per process, before `RunConfig` is
built: the API, the workers and the command line all see the same components.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    create_model,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

import worker.engine.algorithms
import worker.engine.availability
import worker.engine.data
import worker.engine.models
import worker.engine.schedules
import worker.engine.system  # noqa: F401  (the built-ins register on import)
from worker.engine import plugins
from worker.engine.algorithms.asynchronous import runs_async
from worker.engine.data.partitions import without_data
from worker.engine.params import Params, RunShape
from worker.engine.registry import (
    ALGORITHMS,
    AVAILABILITY,
    DATASETS,
    MODELS,
    POOL_PARTITIONS,
    SCHEDULES,
    SYSTEMS,
    DatasetFacts,
    ModelFacts,
    Registry,
    selected,
)
from worker.engine.sections import (
    MAX_SEED,
    AlgorithmSection,
    AvailabilitySection,
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
    "AlgorithmConfig",
    "AlgorithmName",
    "AvailabilityConfig",
    "AvailabilityKind",
    "ClientConfig",
    "DataConfig",
    "EvalConfig",
    "ModelConfig",
    "RoundConfig",
    "RunConfig",
    "ServerConfig",
    "SystemConfig",
    "build_run_config",
]


class _Data(DataSection):
    @model_validator(mode="after")
    def _resolve_partition(self) -> _Data:
        if self.partition == "auto" and self.dataset in DATASETS:
            facts: DatasetFacts = DATASETS.get(self.dataset).facts
            object.__setattr__(self, "partition", facts.partitions[0])
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


class _Run(RunSection):
    @model_validator(mode="wrap")
    @classmethod
    def _every_error(cls, data: Any, handler: ModelWrapValidatorHandler[_Run]) -> _Run:
        """Every error at once: where fields fail their own validation, the cross-field
        checks still run, on the config with those fields left at their defaults, and
        those that read none of the failed fields add their errors. (The `after`
        validator `_consistent` runs outside this one, on a config that validated.)"""
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
    def _consistent(self) -> _Run:
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
        ]
        shape = run_shape(self)
        for section, registry in (
            (self.algorithm, ALGORITHMS),
            (self.availability, AVAILABILITY),
            (self.system, SYSTEMS),
            (self.data, DATASETS),
            (self.model, MODELS),
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
    list or value it lies in (`data.means` for an error at `data.means.3`)."""
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


def run_shape(c: RunSection) -> RunShape:
    """The run as the components' `check_run` hooks see it."""
    return RunShape(
        n_clients=c.data.n_clients,
        k=c.n_selected(),
        rounds=c.rounds,
        algorithm=c.algorithm.name,
        availability=c.availability.kind,
        dataset=c.data.dataset,
        data=dataset_facts(c.data.dataset, c.data.partition),
        partition=c.data.partition,
        model=c.model.name,
        local_steps=c.client.local_steps,
        local_unit=c.client.unit,
        system=c.system.kind,
    )


def dataset_facts(name: str, partition: str) -> DatasetFacts:
    """The dataset's facts, with a population where the partition draws one (CA-Fed's
    incongruent split)."""
    facts: DatasetFacts = DATASETS.get(name).facts
    return replace(facts, population=True) if partition == "incongruent" else facts


def _check_participation(c: RunSection) -> None:
    if runs_async(c.algorithm.name):
        return  # its own concurrency says how many train
    if c.algorithm.participation >= 1 and c.n_selected() > c.data.n_clients:
        raise ValueError(
            f"algorithm.participation: K = {c.n_selected()} exceeds "
            f"data.n_clients = {c.data.n_clients}"
        )


def _data_checks(c: RunSection) -> list[tuple[tuple[str, ...], Callable[[], None]]]:
    """The checks of the data section, each with the fields it reads."""
    d = c.data

    def classes() -> None:
        n_classes = DATASETS.get(d.dataset).facts.n_classes
        if d.partition == "by_class" and d.classes_per_client > n_classes:
            raise ValueError(
                f"data.classes_per_client: {d.classes_per_client} exceeds the "
                f"{n_classes} classes of {d.dataset}"
            )

    def partition() -> None:
        partitions = DATASETS.get(d.dataset).facts.partitions
        if d.partition not in partitions:
            raise ValueError(
                f"data.partition: {d.dataset} supports {', '.join(map(repr, partitions))}, "
                f"not {d.partition!r}"
            )

    def means() -> None:
        # data.means belongs to mean_estimation: a preset used as a base for another
        # dataset keeps its value, unused
        if d.dataset == "mean_estimation" and d.means is not None and len(d.means) != d.n_clients:
            raise ValueError(f"data.means: {len(d.means)} values given for {d.n_clients} clients")

    def clusters() -> None:
        if d.n_clusters > d.n_clients:
            raise ValueError("data.n_clusters: more clusters than clients")

    def samples() -> None:
        # A pool of a known size, split among the clients: each needs a row at least.
        facts: DatasetFacts = DATASETS.get(d.dataset).facts
        if facts.train is None or d.partition not in POOL_PARTITIONS:
            return
        n_train = min(facts.train, d.max_train_samples or facts.train)
        if d.n_clients > n_train:
            raise ValueError(without_data(d.n_clients, n_train))

    return [
        (("data.dataset", "data.partition", "data.classes_per_client"), classes),
        (("data.dataset", "data.partition"), partition),
        (("data.dataset", "data.means", "data.n_clients"), means),
        (("data.n_clusters", "data.n_clients"), clusters),
        (("data.dataset", "data.partition", "data.n_clients", "data.max_train_samples"), samples),
    ]


def _time_checks(c: RunSection) -> list[tuple[tuple[str, ...], Callable[[], None]]]:
    """The checks of the fields that need a system model's clock."""
    timeless = c.system.kind == "none"

    def needs_clock(path: str, value: Any, default: Any) -> Callable[[], None]:
        def check() -> None:
            if timeless and value != default:
                raise ValueError(
                    f"{path}: needs simulated time; choose a system model (system.kind)"
                )

        return check

    def central() -> None:
        if not timeless and _trainees(c.algorithm.name) == "central":
            raise ValueError(
                f"system.kind: {c.algorithm.name} trains centrally, outside simulated time; "
                "use system.kind=none"
            )

    def sampled() -> None:
        trainees = _trainees(c.algorithm.name)
        if c.round.over_commit and trainees != "sample":
            raise ValueError(
                f"round.over_commit: {c.algorithm.name} trains every available client it "
                "keeps, not a sample of K; over-commitment needs an algorithm that samples K"
            )

    def rounds() -> None:
        if not runs_async(c.algorithm.name):
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


def _trainees(algorithm_name: str) -> str:
    """Who an algorithm trains (its footprint): a sample, every available client, or
    one central client."""
    return str(ALGORITHMS.get(algorithm_name).component.footprint.trainees)


def _check_model(c: RunSection) -> None:
    data: DatasetFacts = DATASETS.get(c.data.dataset).facts
    fits: ModelFacts = MODELS.get(c.model.name).facts
    if data.kind not in fits.inputs:
        raise ValueError(
            f"model.name: {c.model.name} needs {' or '.join(fits.inputs)} data; "
            f"{c.data.dataset} is {data.kind} data"
        )
    if fits.binary and data.n_classes != 2:
        raise ValueError(
            f"model.name: {c.model.name} needs a 2-class dataset; "
            f"{c.data.dataset} has {data.n_classes}"
        )


def _section(name: str, base: type[Params], registry: Registry) -> Any:
    """`base` with its selector narrowed to the registered names (their labels in the
    schema's `x-labels`), plus one sub-object per component whose params have fields."""
    selector = copy.copy(base.model_fields[registry.selector])
    labels: dict[str, Any] = {e.name: e.label for e in sorted(registry, key=lambda e: e.name)}
    extra = selector.json_schema_extra if isinstance(selector.json_schema_extra, dict) else {}
    selector.json_schema_extra = {**extra, "x-labels": labels}  # what the form shows
    subs: dict[str, Any] = {
        e.name: (e.params, Field(default_factory=e.params))  # type: ignore[arg-type]
        for e in sorted(registry, key=lambda e: e.name)
        if e.has_section
    }
    return create_model(
        name,
        __base__=base,
        **{registry.selector: (Literal[tuple(sorted(registry.names()))], selector)},  # type: ignore[call-overload]
        **subs,
    )


def build_run_config() -> type[RunSection]:
    """`RunConfig` from the registries as they are now."""
    sections = {
        "data": _section("DataConfig", _Data, DATASETS),
        "model": _section("ModelConfig", ModelSection, MODELS),
        "availability": _section("AvailabilityConfig", AvailabilitySection, AVAILABILITY),
        "system": _section("SystemConfig", SystemSection, SYSTEMS),
        "algorithm": _section("AlgorithmConfig", AlgorithmSection, ALGORITHMS),
        "eval": _section("EvalConfig", EvalSection, SCHEDULES),
    }
    fields: dict[str, Any] = {
        key: (cls, Field(default_factory=cls)) for key, cls in sections.items()
    }
    run: type[RunSection] = create_model("RunConfig", __base__=_Run, **fields)
    return run


plugins.load_plugins()

if TYPE_CHECKING:
    DataConfig = DataSection
    ModelConfig = ModelSection
    AvailabilityConfig = AvailabilitySection
    SystemConfig = SystemSection
    AlgorithmConfig = AlgorithmSection
    EvalConfig = EvalSection
    RunConfig = RunSection
else:
    RunConfig = build_run_config()
    DataConfig = RunConfig.model_fields["data"].annotation
    ModelConfig = RunConfig.model_fields["model"].annotation
    AvailabilityConfig = RunConfig.model_fields["availability"].annotation
    SystemConfig = RunConfig.model_fields["system"].annotation
    AlgorithmConfig = RunConfig.model_fields["algorithm"].annotation
    EvalConfig = RunConfig.model_fields["eval"].annotation

# The registered names, as Literal types (parametrised tests read them with get_args).
AlgorithmName: Any = Literal[ALGORITHMS.names()]
AvailabilityKind: Any = Literal[AVAILABILITY.names()]
SystemKind: Any = Literal[SYSTEMS.names()]
