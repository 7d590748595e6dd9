"""`incongruent`: CA-Fed's incongruent split of an image pool (its generator's
`--incongruent_split`, which its MNIST and CIFAR-10 experiments use), draw for draw:

1. the train and test pools are joined (train rows first) and a permutation of all
   their rows is cut into N chunks (`leaf_chunks`); a client's rows below the train
   pool's size are its train split, the others its test split, in the chunk's order;
2. a permutation of the clients is cut into the clusters the same way;
3. for each cluster in turn: `swap_pairs` pairs of distinct labels (one draw without
   replacement), then its clients' types by the stochastic split
   (`client_types(deterministic=False)`) and their π and λ (`cafed_population`).

Every cluster swaps its labels, the first included. No test row is left without a
client: the global test metrics are over the union of the clients' test splits.
A client's `client_class` (what label-driven availability groups by) is its cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from pydantic import Field
from torch import Tensor

from worker.engine.data.federated import FederatedData, Pool, offsets
from worker.engine.data.partitions.base import Grouped, Partition, PartitionContext, check_clusters
from worker.engine.data.population import (
    CAFED_TYPES,
    Population,
    PopulationG,
    PopulationNu,
    cafed_population,
    client_types,
)
from worker.engine.params import Params, RunShape
from worker.engine.registry import partition


class IncongruentParams(Params):
    n_clusters: int = Field(2, ge=1, description="Number of client clusters.")
    swap_pairs: int = Field(2, ge=1, le=5, description="Label pairs each cluster draws and swaps.")
    population_g: PopulationG = 0.4
    population_nu: PopulationNu = 0.9

    def check_run(self, run: RunShape) -> None:
        check_clusters("data.incongruent.n_clusters", self.n_clusters, run)


def leaf_chunks(items: np.ndarray, g: int) -> list[np.ndarray]:
    """`items` cut into `g` consecutive chunks of ⌊n/g⌋ or ⌊n/g⌋ + 1, the smaller
    ones first (LEAF's `iid_divide`, which CA-Fed's generator uses; numpy's
    `array_split` puts the larger ones first)."""
    size, big = divmod(len(items), g)
    sizes = [size] * (g - big) + [size + 1] * big
    return np.split(items, np.cumsum(sizes)[:-1])


def swap_labels(pairs: np.ndarray, n_classes: int) -> np.ndarray:
    """The label map that swaps each pair (a, b) in turn."""
    perm = np.arange(n_classes)
    for a, b in pairs.tolist():
        perm[[a, b]] = perm[[b, a]]
    return perm


@dataclass(frozen=True)
class Split:
    """Who holds what: each client's rows of the joined pool (`rows`, in the
    generator's order), its cluster, its label map and the population."""

    rows: list[np.ndarray]
    cluster: np.ndarray
    label_map: np.ndarray  # (N, n_classes): client k's label of an original label
    population: Population


def draw_split(
    n_rows: int, n_classes: int, n: int, params: IncongruentParams, rng: np.random.Generator
) -> Split:
    """The split of `n_rows` joined rows among `n` clients, drawn as the generator draws it."""
    rows = leaf_chunks(rng.permutation(n_rows), n)
    groups = leaf_chunks(rng.permutation(n), params.n_clusters)
    cluster = np.zeros(n, dtype=np.int64)
    pi, lam = np.zeros(n), np.zeros(n)
    label_map = np.zeros((n, n_classes), dtype=np.int64)
    for c, ids in enumerate(groups):
        pairs = rng.choice(n_classes, size=(params.swap_pairs, 2), replace=False)
        types = client_types(len(ids), CAFED_TYPES, rng, deterministic=False)
        population = cafed_population(types, params.population_g, params.population_nu, rng)
        cluster[ids] = c
        pi[ids], lam[ids] = population.pi.numpy(), population.lam.numpy()
        label_map[ids] = swap_labels(pairs, n_classes)
    return Split(rows, cluster, label_map, Population(torch.as_tensor(pi), torch.as_tensor(lam)))


def incongruent(
    pool: Pool, n_classes: int, n: int, params: IncongruentParams, rng: np.random.Generator
) -> FederatedData:
    """The data of `n` clients: `draw_split` over the joined pool."""
    x_train, y_train, x_test, y_test = pool
    n_pool_train = len(y_train)
    x = torch.cat([x_train, x_test])
    y = torch.cat([y_train, y_test]).numpy()
    split = draw_split(len(y), n_classes, n, params, rng)

    def gather(parts: list[np.ndarray]) -> tuple[Tensor, Tensor, Tensor]:
        rows = np.concatenate(parts)
        labels = np.concatenate([split.label_map[k][y[r]] for k, r in enumerate(parts)])
        return x[torch.as_tensor(rows)], torch.as_tensor(labels), offsets([len(p) for p in parts])

    xtr, ytr, otr = gather([r[r < n_pool_train] for r in split.rows])
    xte, yte, ote = gather([r[r >= n_pool_train] for r in split.rows])
    cluster = torch.as_tensor(split.cluster)
    return FederatedData(
        x_train=xtr,
        y_train=ytr,
        train_offsets=otr,
        x_test=xte,
        y_test=yte,
        test_offsets=ote,
        n_classes=n_classes,
        task="classification",
        client_class=cluster,
        cluster=cluster,
        population=split.population,
    )


@partition("incongruent", params=IncongruentParams, label="incongruent (CA-Fed)")
class Incongruent(Partition):
    """The whole pool, train and test, is split (`data.max_train_samples` does not apply)."""

    population = True
    params: IncongruentParams

    def split(
        self, pool: Grouped, ctx: PartitionContext, rng: np.random.Generator
    ) -> FederatedData:
        return incongruent(pool.pool, ctx.n_classes, ctx.n_clients, self.params, rng)
