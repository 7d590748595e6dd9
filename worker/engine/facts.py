"""What a dataset and a model declare about themselves (`@dataset(facts=...)`,
`@model(facts=...)`), so that config checks and estimates need no list of names; and
why a split leaves clients without data, in the words both the config check and the
partitions give (`without_data`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

DataKind = Literal["image", "vector", "regression", "text"]
DataSource = Literal["generated", "bundled", "data_root"]


@dataclass(frozen=True)
class FileSizes:
    """What a dataset's files say of its size without their samples being parsed:
    `largest_user`, the train samples of its user with the most (one client's local
    steps under the natural partition); `reading_bytes`, what reading the files holds
    at once beyond the arrays the loader returns."""

    largest_user: int
    reading_bytes: int


@dataclass(frozen=True)
class DatasetFacts:
    """What a dataset declares, so that config checks need no list of names.

    `kind`: image (C, H, W) samples, flat feature vectors, or regression targets (one
    value per sample, FedLaAvg's mean estimation). `source`: generated from the seed,
    bundled with a package, or read from `data.root`. `partitions`: the partitions
    its loader makes itself, returning `FederatedData` (the first is what
    `data.partition=auto` means); none: its loader returns a pool (x, y, x_test,
    y_test), which every registered partition that splits pools may split (`auto`:
    natural where it has users, iid otherwise). `users`: whether its samples belong to
    users of its own (LEAF's writers, speaking roles), what a natural partition makes
    its clients of; `columns`: other per-sample columns a natural partition may group
    by. A pool loader of a dataset with users or columns returns a `Grouped` pool, the
    samples' ids under each. `shape`, `train`, `test`: a sample's
    shape and the pool's sizes where they are fixed (the run's estimates use them).
    `population`: whether its `FederatedData` carries the clients' π and λ (a
    `Population`, which availability models may take with `population = dataset`).
    `users`: the dataset has users of its own (LEAF's writers, speaking roles), one
    client each: it fixes `data.n_clients` to their number and is split by them
    (the `natural` partition). `layout`: a cheap check of its files under `data.root`
    (a folder listing, nothing parsed), raising `DatasetMissing` or `ConfigError` naming
    the key, that a submission runs before any run starts (`data.check_dataset`).
    `file_sizes`: the `FileSizes` of its files under `data.root`, read cheaply (LEAF's
    `num_samples`, written before the samples), so that a run's estimate counts its
    largest user rather than the whole set (None where they cannot be read so).
    `tokens`: for text, how many token ids its samples use (ids 0 to tokens - 1), what
    a text model's embedding must hold (`vocabulary`). `value_bytes`: the bytes of one
    value of a sample as its `FederatedData` holds it (4: float32; 1: FEMNIST's pixel
    bytes, Shakespeare's token ids; 2: Sent140's), what a run's estimate counts.
    """

    n_classes: int
    kind: DataKind
    source: DataSource
    partitions: tuple[str, ...] = ()
    shape: tuple[int, ...] | None = None
    train: int | None = None
    test: int | None = None
    population: bool = False
    users: bool = False
    columns: tuple[str, ...] = ()
    layout: Callable[[Path], None] | None = None
    file_sizes: Callable[[Path], FileSizes | None] | None = None
    tokens: int | None = None
    value_bytes: int = 4

    @property
    def pooled(self) -> bool:
        """Whether its loader returns a pool for a partition to split."""
        return not self.partitions

    @property
    def auto(self) -> str:
        """The partition `data.partition=auto` means."""
        if self.partitions:
            return self.partitions[0]
        return "natural" if self.users else "iid"

    @property
    def default_metric(self) -> str:
        """The round metric a chart of its runs shows first: the estimate itself for a
        regression target (FedLaAvg's mean estimation), test accuracy otherwise."""
        return "param" if self.kind == "regression" else "test_acc"


@dataclass(frozen=True)
class ModelFacts:
    """The kinds of data (`DatasetFacts.kind`) a model can be trained on; `binary`: it
    outputs one logit, trained with binary cross-entropy, so fits 2-class data only
    (`training/objective.py`)."""

    inputs: tuple[DataKind, ...] = ("image", "vector")
    binary: bool = False


def without_data(n_clients: int, samples: int) -> str:
    """Why a partition of `samples` rows among `n_clients` clients cannot run."""
    return (
        f"data.n_clients: {n_clients} clients leave some without data ({samples} samples); "
        "use fewer clients"
    )
