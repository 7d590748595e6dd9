"""`label_swap`: an iid split whose client clusters see permuted labels (CA-Fed)."""

from __future__ import annotations

import numpy as np
import torch
from pydantic import Field

from worker.engine.data.federated import FederatedData
from worker.engine.data.partitions.base import Grouped, PartitionContext, check_clusters
from worker.engine.data.partitions.clusters import contiguous_clusters
from worker.engine.data.partitions.iid import Iid
from worker.engine.params import Params, RunShape
from worker.engine.registry import partition


class LabelSwapParams(Params):
    n_clusters: int = Field(2, ge=1, description="Number of client clusters.")
    swap_pairs: int = Field(2, ge=1, le=5, description="Label pairs each further cluster swaps.")

    def check_run(self, run: RunShape) -> None:
        check_clusters("data.label_swap.n_clusters", self.n_clusters, run)


def swap_permutation(cluster: int, n_classes: int, swap_pairs: int) -> np.ndarray:
    """Cluster 0 keeps labels; cluster j >= 1 swaps `swap_pairs` label pairs, a new set each."""
    perm = np.arange(n_classes)
    if cluster == 0:
        return perm
    n_pairs = n_classes // 2
    for i in range(swap_pairs * (cluster - 1), swap_pairs * cluster):
        a = 2 * (i % n_pairs)
        perm[a], perm[a + 1] = perm[a + 1], perm[a]
    return perm


def apply_label_swap(data: FederatedData, n_clusters: int, swap_pairs: int) -> FederatedData:
    cluster = contiguous_clusters(data.n_clients, n_clusters)
    y_train, y_test = data.y_train.clone(), data.y_test.clone()
    for k in range(data.n_clients):
        perm = torch.as_tensor(swap_permutation(int(cluster[k]), data.n_classes, swap_pairs))
        for y, off in ((y_train, data.train_offsets), (y_test, data.test_offsets)):
            lo, hi = int(off[k]), int(off[k + 1])
            y[lo:hi] = perm[y[lo:hi]]
    swapped = {"y_train": y_train, "y_test": y_test, "cluster": torch.as_tensor(cluster)}
    return FederatedData(**{**data.__dict__, **swapped})


@partition("label_swap", params=LabelSwapParams, label="label swap (CA-Fed)")
class LabelSwap(Iid):
    params: LabelSwapParams

    def split(
        self, pool: Grouped, ctx: PartitionContext, rng: np.random.Generator
    ) -> FederatedData:
        data = super().split(pool, ctx, rng)
        return apply_label_swap(data, self.params.n_clusters, self.params.swap_pairs)
