"""The sizes every term is computed from, and which setting drives a term."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from worker.engine.algorithms.asynchronous import AsyncParams
from worker.engine.algorithms.base import Footprint
from worker.engine.config import RunConfig, dataset_facts
from worker.engine.data.synthetic import GeneratedRows
from worker.engine.errors import ConfigError
from worker.engine.facts import FileSizes
from worker.engine.registry import selected
from worker.engine.resources.model_profile import ModelProfile, model_profile
from worker.engine.training.backend import resolve_backend


def sample_shape(config: RunConfig) -> tuple[int, ...]:
    """A sample's shape: the dataset's where fixed, else its `dimension` parameter's
    features (`data.<dataset>.dimension`)."""
    shape = dataset_facts(config).shape
    if shape is not None:
        return shape
    dimension = getattr(dataset_params(config), "dimension", None)
    if not isinstance(dimension, int):
        raise ConfigError(
            f"data.dataset: {config.data.dataset} declares no sample shape "
            "(DatasetFacts.shape) and has no `dimension` parameter"
        )
    return (dimension,)


def dataset_params(config: RunConfig) -> Any:
    return selected(config.data, config.components.datasets)[1]


def generated_rows(config: RunConfig) -> tuple[GeneratedRows, tuple[str, ...]]:
    """The rows per client of a generated dataset, and the settings they come from (none
    where the dataset has no such parameters: then the defaults are assumed)."""
    params = dataset_params(config)
    if isinstance(params, GeneratedRows):
        own = f"data.{config.data.dataset}"
        return params, (f"{own}.train_per_client", f"{own}.test_per_client")
    return GeneratedRows(), ()


def _scale(config: RunConfig, path: str) -> float:
    """How far a setting is above its default (1 where it is not a number)."""
    value, default = _get(config, path), _get(_defaults(type(config)), path)
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (value, default))
    return value / default if numbers and default > 0 else 1.0


@functools.cache
def _defaults(cls: type[RunConfig]) -> RunConfig:
    return cls()


def _get(config: RunConfig, path: str) -> Any:
    node: Any = config
    for key in path.split("."):
        node = getattr(node, key)
    return node


def driver(config: RunConfig, *paths: str) -> str:
    """Of the settings a term grows with, the one furthest above its default (the
    first where none is)."""
    return max(paths, key=lambda p: _scale(config, p))


@dataclass(frozen=True)
class RunSizes:
    """The sizes every term is computed from."""

    config: RunConfig
    profile: ModelProfile
    footprint: Footprint
    backend: str
    n: int  # clients
    k: int  # clients that train in a round
    k_field: str
    features: int  # of one sample
    n_train: int
    n_test: int
    steps: int  # local steps of the client with the most data
    d_fields: tuple[str, ...]  # what drives d

    @property
    def d(self) -> int:
        return self.profile.d

    @property
    def batch(self) -> int:
        return self.config.client.batch_size

    @property
    def evaluations(self) -> int:
        return math.ceil(self.config.rounds / self.config.eval.every) + 1


def run_sizes(config: RunConfig) -> RunSizes:
    data, facts = config.data, dataset_facts(config)
    shape = sample_shape(config)
    regression = facts.kind == "regression"
    d_fields: tuple[str, ...] = ("model.mlp.hidden",) if config.model.name == "mlp" else ()
    if facts.shape is None:
        d_fields += (f"data.{data.dataset}.dimension",)
    d_fields += ("model.name",)
    try:
        profile = model_profile(
            type(config.model), config.model.model_dump_json(), shape, facts.n_classes, regression
        )
    except RuntimeError as err:  # a tensor of more than 2^63 elements
        raise ConfigError(
            f"{driver(config, *d_fields)}: the model cannot be built ({err})"
        ) from None
    footprint: Footprint = config.components.algorithms.get(
        config.algorithm.name
    ).component.footprint
    n = data.n_clients
    if facts.train is not None and facts.test is not None:
        n_train = min(facts.train, data.max_train_samples or facts.train)
        n_test = facts.test
    else:
        rows, _ = generated_rows(config)
        n_train, n_test = n * rows.train_per_client, n * rows.test_per_client
    if footprint.trainees == "central":
        k, k_field, largest = 1, "algorithm.name", n_train
    elif footprint.trainees == "available":
        k, k_field, largest = n, "data.n_clients", _largest_client(config, n_train)
    elif isinstance(
        params := selected(config.algorithm, config.components.algorithms)[1], AsyncParams
    ):
        k, k_field = min(params.arrivals, n), params.arrivals_field  # trained at once
        largest = _largest_client(config, n_train)
    else:
        k, k_field = min(config.n_selected(), n), "algorithm.participation"
        largest = _largest_client(config, n_train)
    client = config.client
    steps = client.local_steps
    if client.unit == "epochs":
        steps *= math.ceil(largest / client.batch_size)
    return RunSizes(
        config=config,
        profile=profile,
        footprint=footprint,
        backend=resolve_backend(config.backend, profile.module),
        n=n,
        k=k,
        k_field=k_field,
        features=math.prod(shape),
        n_train=n_train,
        n_test=n_test,
        steps=steps,
        d_fields=d_fields,
    )


def file_sizes(config: RunConfig) -> FileSizes | None:
    """What the dataset's files under `data.root` say of their size, where it can say
    (`DatasetFacts.file_sizes`)."""
    read = dataset_facts(config).file_sizes
    return None if read is None else read(Path(config.data.root))


def _largest_client(config: RunConfig, n_train: int) -> int:
    """Train samples of the client with the most, from above: a partition's bound on
    its spread, else (a natural partition's) the dataset's largest user, read from its
    files, else the whole set."""
    data = config.data
    split, params = selected(data, config.components.partitions)
    spread = split.component(params).spread()
    if not math.isinf(spread):
        return min(n_train, math.ceil(n_train / data.n_clients * spread))
    sizes = file_sizes(config)
    return n_train if sizes is None else min(n_train, sizes.largest_user)
