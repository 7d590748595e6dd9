"""`clusters`: contiguous blocks of clients, the partition of the generated datasets that
draw each cluster's data differently (CA-Fed's synthetic clustered data)."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from worker.engine.data.partitions.base import Partition, check_clusters
from worker.engine.params import Params, RunShape
from worker.engine.registry import partition


class ClustersParams(Params):
    n_clusters: int = Field(2, ge=1, description="Number of client clusters.")

    def check_run(self, run: RunShape) -> None:
        check_clusters("data.clusters.n_clusters", self.n_clusters, run)


def contiguous_clusters(n_clients: int, n_clusters: int) -> np.ndarray:
    """Cluster ids in contiguous blocks: the first N/n_clusters clients form cluster 0."""
    return (np.arange(n_clients) * n_clusters) // n_clients


@partition("clusters", params=ClustersParams, label="clusters (generated)")
class Clusters(Partition):
    """Made by the generated datasets themselves (`DatasetFacts.partitions`): it splits
    no pool."""

    pools = False
    params: ClustersParams
