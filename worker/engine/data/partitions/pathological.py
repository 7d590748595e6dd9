"""`pathological`: n classes a client, every class held by as many clients as the others.

The class slots of the clients are dealt from a shuffled class order, round robin:
client k's j-th class is `order[(k·n + j) mod C]`. A client's n classes are therefore
distinct (n ≤ C), and each class is held by ⌊N·n/C⌋ or ⌈N·n/C⌉ clients. Each class's
rows, shuffled, are then cut into equal shares among its holders (the larger shares
first), so a client's size is the sum of its classes' shares.

McMahan et al.'s FedAvg "pathological non-IID" split (sort by label, cut into 2N shards
of equal size, two random shards a client) differs in two ways: there a client may draw
two shards of one class (holding fewer than two classes), and a class's number of
holders follows its size, so every client holds the same number of rows. Here every
client holds exactly n classes and the number of holders is even across classes; with
equal class sizes and C dividing N·n, the two give the same sizes and class counts.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from worker.engine.data.federated import joined
from worker.engine.data.partitions.base import Partition, check_classes
from worker.engine.params import Params, RunShape
from worker.engine.registry import partition


class PathologicalParams(Params):
    classes_per_client: int = Field(
        2, ge=1, description="n: distinct classes each client holds (FedAvg's split: 2)."
    )

    def check_run(self, run: RunShape) -> None:
        check_classes("data.pathological.classes_per_client", self.classes_per_client, run)


def pathological(
    labels: np.ndarray, n_clients: int, n: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Client k holds classes `order[(k·n + j) mod C]`, j < n, for a shuffled `order`;
    each class's shuffled rows are cut equally among its holders."""
    n_classes = int(labels.max()) + 1
    order = rng.permutation(n_classes)
    holders: list[list[int]] = [[] for _ in range(n_classes)]
    for k in range(n_clients):
        for j in range(n):
            holders[int(order[(k * n + j) % n_classes])].append(k)
    parts: list[list[np.ndarray]] = [[] for _ in range(n_clients)]
    for cls, owners in enumerate(holders):
        if not owners:
            continue
        rows = rng.permutation(np.flatnonzero(labels == cls))
        for k, chunk in zip(owners, np.array_split(rows, len(owners)), strict=True):
            parts[k].append(chunk)
    return joined(parts)


@partition("pathological", params=PathologicalParams, label="pathological (n classes)")
class Pathological(Partition):
    params: PathologicalParams

    def rows(
        self, labels: np.ndarray, n_clients: int, rng: np.random.Generator
    ) -> list[np.ndarray]:
        return pathological(labels, n_clients, self.params.classes_per_client, rng)

    def spread(self) -> float:
        return 2.0
