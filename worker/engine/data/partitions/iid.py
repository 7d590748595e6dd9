"""`iid`: the pool shuffled and cut into N near-equal shares."""

from __future__ import annotations

import numpy as np

from worker.engine.data.partitions.base import Partition
from worker.engine.registry import partition


def iid(n: int, n_clients: int, rng: np.random.Generator) -> list[np.ndarray]:
    """A permutation of the `n` rows cut into `n_clients` shares, the larger first."""
    return list(np.array_split(rng.permutation(n), n_clients))


@partition("iid", label="iid")
class Iid(Partition):
    def rows(
        self, labels: np.ndarray, n_clients: int, rng: np.random.Generator
    ) -> list[np.ndarray]:
        return iid(len(labels), n_clients, rng)
