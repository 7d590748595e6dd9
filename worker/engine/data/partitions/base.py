"""The partition contract: a `Partition` splits a dataset's pool (a `Grouped`) into the
clients' `FederatedData`.

Most partitions only say which pool rows each client trains on (`rows`); `split` then
gives each client the test rows of its labels (`federated.assemble`). A partition that
does more (swaps labels, joins the train and test pools) overrides `split`. Every random
draw comes from the generator it is given, so the data seed fixes the split. A partition
reads of the run only its `PartitionContext`, never the config's sections.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from torch import Tensor

from worker.engine.data.federated import FederatedData, Pool, assemble
from worker.engine.errors import ConfigError
from worker.engine.facts import without_data
from worker.engine.params import RunShape


class PartitionError(ConfigError):
    pass


def check_clusters(path: str, n_clusters: int, run: RunShape) -> None:
    """A cluster needs a client at least."""
    if n_clusters > run.n_clients:
        raise ValueError(f"{path}: more clusters than clients")


def check_classes(path: str, classes: int, run: RunShape) -> None:
    """A client cannot hold more distinct classes than the dataset has."""
    if classes > run.data.n_classes:
        raise ValueError(
            f"{path}: {classes} exceeds the {run.data.n_classes} classes of {run.dataset}"
        )


@dataclass(frozen=True)
class Grouped:
    """A dataset's labelled pool (x, y, x_test, y_test) and, where its samples belong to
    groups (its users, a column), each train and test row's group id under each grouping
    (`DatasetFacts.users`, `DatasetFacts.columns`); `values`: where its images are held
    as bytes, what each byte stands for (`FederatedData.x_values`), which the clients'
    data carry."""

    pool: Pool
    train_groups: Mapping[str, np.ndarray] = field(default_factory=dict)
    test_groups: Mapping[str, np.ndarray] = field(default_factory=dict)
    values: Tensor | None = None

    @property
    def labels(self) -> np.ndarray:
        return self.pool[1].numpy()

    def subset(self, rows: np.ndarray) -> Grouped:
        """The pool with these train rows only, in this order."""
        x, y, xt, yt = self.pool
        groups = {name: ids[rows] for name, ids in self.train_groups.items()}
        return Grouped((x[rows], y[rows], xt, yt), groups, self.test_groups, self.values)


@dataclass(frozen=True)
class PartitionContext:
    """What a partition reads of the run: the dataset's name (for its messages), the
    number of clients and of classes, and the cap on the pool's train rows
    (`data.max_train_samples`, None for all)."""

    dataset: str
    n_clients: int
    n_classes: int
    max_train_samples: int | None = None


class Partition:
    """A way to split a dataset's pool among the clients, built with its validated
    params (`@partition(name, params=...)`; None without). `pools`: it splits a pool (a
    dataset that generates its clients' data declares the partitions it makes itself,
    `DatasetFacts.partitions`); `population`: its `FederatedData` carries the clients'
    π and λ."""

    pools: ClassVar[bool] = True
    population: ClassVar[bool] = False
    params: Any

    def __init__(self, params: Any = None) -> None:
        self.params = params

    def rows(
        self, labels: np.ndarray, n_clients: int, rng: np.random.Generator
    ) -> list[np.ndarray]:
        """The pool rows each of the `n_clients` clients trains on."""
        raise NotImplementedError(f"{type(self).__name__} defines neither rows() nor split()")

    def spread(self) -> float:
        """The largest client's rows over the mean, from above (the run's estimates)."""
        return 1.0

    def split(
        self, pool: Grouped, ctx: PartitionContext, rng: np.random.Generator
    ) -> FederatedData:
        """The clients' data: at most `ctx.max_train_samples` rows of the pool drawn,
        then `rows`, then each client's test rows by its labels."""
        n = len(pool.labels)
        if ctx.max_train_samples is not None and ctx.max_train_samples < n:
            pool = pool.subset(rng.permutation(n)[: ctx.max_train_samples])
        rows = self.rows(pool.labels, ctx.n_clients, rng)
        if min(len(r) for r in rows) == 0:
            raise PartitionError(without_data(ctx.n_clients, len(pool.labels)))
        x, y, xt, yt = pool.pool
        return assemble(x, y, rows, xt, yt, ctx.n_classes, rng)
