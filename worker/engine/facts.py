"""What a dataset and a model declare about themselves (`@dataset(facts=...)`,
`@model(facts=...)`), so that config checks and estimates need no list of names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DataKind = Literal["image", "vector", "regression", "text"]
DataSource = Literal["generated", "bundled", "data_root"]
POOL_PARTITIONS = ("iid", "by_class", "dirichlet", "label_swap", "incongruent")


@dataclass(frozen=True)
class DatasetFacts:
    """What a dataset declares, so that config checks need no list of names.

    `kind`: image (C, H, W) samples, flat feature vectors, or regression targets (one
    value per sample, FedLaAvg's mean estimation), or text (token ids, one sequence a
    sample). `source`: generated from the seed,
    bundled with a package, or read from `data.root`. `partitions`: the
    `data.partition` values it supports, the first being what `auto` means. A loader
    that returns a pool (x, y, x_test, y_test) is partitioned by the engine; one that
    returns `FederatedData` partitions itself. `shape`, `train`, `test`: a sample's
    shape and the pool's sizes where they are fixed (the run's estimates use them).
    `population`: whether its `FederatedData` carries the clients' π and λ (a
    `Population`, which availability models may take with `population = dataset`).
    `users`: the dataset has users of its own (LEAF's writers, speaking roles), one
    client each: it fixes `data.n_clients` to their number and is split by them
    (the `natural` partition).
    """

    n_classes: int
    kind: DataKind
    source: DataSource
    partitions: tuple[str, ...] = POOL_PARTITIONS
    shape: tuple[int, ...] | None = None
    train: int | None = None
    test: int | None = None
    population: bool = False
    users: bool = False


@dataclass(frozen=True)
class ModelFacts:
    """The kinds of data (`DatasetFacts.kind`) a model can be trained on; `binary`: it
    outputs one logit, trained with binary cross-entropy, so fits 2-class data only
    (`training/objective.py`)."""

    inputs: tuple[DataKind, ...] = ("image", "vector")
    binary: bool = False
