"""`dirichlet`: each class split among the clients in Dir(α) proportions (Hsu et al. 2019)."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from worker.engine.data.partitions.base import Partition
from worker.engine.params import Params
from worker.engine.registry import partition


class DirichletParams(Params):
    alpha: float = Field(
        0.5,
        gt=0,
        title="α",
        description="Concentration α: small α gives each client few classes, large α "
        "approaches iid.",
    )


def dirichlet(
    labels: np.ndarray, n_clients: int, alpha: float, rng: np.random.Generator
) -> list[np.ndarray]:
    """For each class in turn: its rows shuffled, proportions p ~ Dir(α·1_N) drawn, and
    client k takes the rows between ⌊n·(p_1+…+p_{k-1})⌋ and ⌊n·(p_1+…+p_k)⌋."""
    n_classes = int(labels.max()) + 1
    parts: list[list[np.ndarray]] = [[] for _ in range(n_clients)]
    for cls in range(n_classes):
        rows = rng.permutation(np.flatnonzero(labels == cls))
        props = rng.dirichlet(np.full(n_clients, alpha))
        cuts = np.floor(np.cumsum(props) * len(rows)).astype(int)
        for k, chunk in enumerate(np.split(rows, cuts[:-1])):
            parts[k].append(chunk)
    return [np.concatenate(p) for p in parts]


@partition("dirichlet", params=DirichletParams, label="Dirichlet (α)")
class Dirichlet(Partition):
    params: DirichletParams

    def rows(
        self, labels: np.ndarray, n_clients: int, rng: np.random.Generator
    ) -> list[np.ndarray]:
        return dirichlet(labels, n_clients, self.params.alpha, rng)

    def spread(self) -> float:
        return 1 + 2 / self.params.alpha
