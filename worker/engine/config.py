"""`RunConfig`: the single, JSON-serialisable description of a simulation run, built
from the component registries.

Its JSON Schema generates the web form; dotted paths into it (`algorithm.name`,
`availability.markov.g`) are what `--set key=value` and sweeps address. The selectors
(`algorithm.name`, `availability.kind`, `data.dataset`, `model.name`) take the
registered names, and every component with params has its sub-object named after it
(`algorithm.<name>.<param>`, `availability.<kind>.<param>`, `data.<name>.<param>`,
`model.<name>.<param>`), so switching a selector never leaves an invalid field behind.

Importing this module registers the built-in components and loads the plug-ins of
the installed distributions (`plugins.py`), once per process, before `RunConfig` is
built: the API, the workers and the command line all see the same components.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, create_model, model_validator

import worker.engine.algorithms
import worker.engine.availability
import worker.engine.data
import worker.engine.models  # noqa: F401  (the built-ins register on import)
from worker.engine import plugins
from worker.engine.params import Params, RunShape
from worker.engine.registry import (
    ALGORITHMS,
    AVAILABILITY,
    DATASETS,
    MODELS,
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
    EvalConfig,
    ModelSection,
    RunSection,
    ServerConfig,
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
    "RunConfig",
    "ServerConfig",
    "build_run_config",
]


class _Data(DataSection):
    @model_validator(mode="after")
    def _resolve_partition(self) -> _Data:
        if self.partition == "auto" and self.dataset in DATASETS:
            facts: DatasetFacts = DATASETS.get(self.dataset).facts
            object.__setattr__(self, "partition", facts.partitions[0])
        return self


class _Run(RunSection):
    @model_validator(mode="after")
    def _consistent(self) -> _Run:
        _check_participation(self)
        _check_data(self)
        _check_model(self)
        shape = run_shape(self)
        for section, registry in (
            (self.algorithm, ALGORITHMS),
            (self.availability, AVAILABILITY),
            (self.data, DATASETS),
            (self.model, MODELS),
        ):
            _, params = selected(section, registry)
            if params is not None:
                params.check_run(shape)
        return self


def run_shape(c: RunSection) -> RunShape:
    """The run as the components' `check_run` hooks see it."""
    return RunShape(
        n_clients=c.data.n_clients,
        k=c.n_selected(),
        rounds=c.rounds,
        algorithm=c.algorithm.name,
        availability=c.availability.kind,
        dataset=c.data.dataset,
        data=DATASETS.get(c.data.dataset).facts,
        partition=c.data.partition,
        model=c.model.name,
        local_steps=c.client.local_steps,
        local_unit=c.client.unit,
    )


def _check_participation(c: RunSection) -> None:
    if c.algorithm.participation >= 1 and c.n_selected() > c.data.n_clients:
        raise ValueError(
            f"algorithm.participation: K = {c.n_selected()} exceeds "
            f"data.n_clients = {c.data.n_clients}"
        )


def _check_data(c: RunSection) -> None:
    d = c.data
    facts: DatasetFacts = DATASETS.get(d.dataset).facts
    if d.partition == "by_class" and d.classes_per_client > facts.n_classes:
        raise ValueError(
            f"data.classes_per_client: {d.classes_per_client} exceeds the "
            f"{facts.n_classes} classes of {d.dataset}"
        )
    if d.partition not in facts.partitions:
        raise ValueError(
            f"data.partition: {d.dataset} supports {', '.join(map(repr, facts.partitions))}, "
            f"not {d.partition!r}"
        )
    # data.means belongs to mean_estimation: a preset used as a base for another dataset
    # keeps its value, unused
    if d.dataset == "mean_estimation" and d.means is not None and len(d.means) != d.n_clients:
        raise ValueError(f"data.means: {len(d.means)} values given for {d.n_clients} clients")
    if d.n_clusters > d.n_clients:
        raise ValueError("data.n_clusters: more clusters than clients")


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
    """`base` with its selector narrowed to the registered names, plus one sub-object
    per component whose params have fields."""
    selector = copy.copy(base.model_fields[registry.selector])
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
        "algorithm": _section("AlgorithmConfig", AlgorithmSection, ALGORITHMS),
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
    AlgorithmConfig = AlgorithmSection
    RunConfig = RunSection
else:
    RunConfig = build_run_config()
    DataConfig = RunConfig.model_fields["data"].annotation
    ModelConfig = RunConfig.model_fields["model"].annotation
    AvailabilityConfig = RunConfig.model_fields["availability"].annotation
    AlgorithmConfig = RunConfig.model_fields["algorithm"].annotation

# The registered names, as Literal types (parametrised tests read them with get_args).
AlgorithmName: Any = Literal[ALGORITHMS.names()]
AvailabilityKind: Any = Literal[AVAILABILITY.names()]
