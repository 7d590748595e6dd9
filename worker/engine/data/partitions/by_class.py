"""`by_class`: c classes a client, the first by the client's id (FedLaAvg, MIFA, FedAR)."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from worker.engine.data.federated import joined
from worker.engine.data.partitions.base import Partition, check_classes
from worker.engine.params import Params, RunShape
from worker.engine.registry import partition


class ByClassParams(Params):
    classes_per_client: int = Field(1, ge=1, description="Distinct labels held by each client.")
    sizes: Literal["balanced", "normal"] = Field(
        "balanced", description="Equal shares or normal-distributed client sizes."
    )
    size_std: float = Field(0.5, ge=0, description="normal sizes: relative std of client sizes.")

    def check_run(self, run: RunShape) -> None:
        check_classes("data.by_class.classes_per_client", self.classes_per_client, run)


def split_counts(total: int, share: np.ndarray) -> np.ndarray:
    """Counts summing to `total`, proportional to `share`, at least 1 each where possible."""
    floor = 1 if total >= len(share) else 0
    rest = total - floor * len(share)
    cuts = np.floor(np.cumsum(share) / share.sum() * rest).astype(int)
    return floor + np.diff(np.concatenate([[0], cuts]))


def by_class(
    labels: np.ndarray,
    n_clients: int,
    c: int,
    sizes: str,
    size_std: float,
    rng: np.random.Generator,
) -> list[np.ndarray]:
    """Client k holds class k mod C plus c-1 other random classes.

    Each class's samples are shared among its holders equally ("balanced") or with
    shares drawn from N(1, size_std) clipped at 0.1 ("normal", FedLaAvg's unbalanced sizes).
    """
    n_classes = int(labels.max()) + 1
    holders: list[list[int]] = [[] for _ in range(n_classes)]
    for k in range(n_clients):
        first = k % n_classes
        others = rng.choice([x for x in range(n_classes) if x != first], c - 1, replace=False)
        for cls in (first, *others.tolist()):
            holders[cls].append(k)
    parts: list[list[np.ndarray]] = [[] for _ in range(n_clients)]
    for cls, owners in enumerate(holders):
        if not owners:
            continue
        rows = rng.permutation(np.flatnonzero(labels == cls))
        share = np.ones(len(owners))
        if sizes == "normal":
            share = np.clip(rng.normal(1.0, size_std, len(owners)), 0.1, None)
        counts = split_counts(len(rows), share)
        for k, chunk in zip(owners, np.split(rows, np.cumsum(counts)[:-1]), strict=True):
            parts[k].append(chunk)
    return joined(parts)


@partition("by_class", params=ByClassParams, label="by class")
class ByClass(Partition):
    params: ByClassParams

    def rows(
        self, labels: np.ndarray, n_clients: int, rng: np.random.Generator
    ) -> list[np.ndarray]:
        p = self.params
        return by_class(labels, n_clients, p.classes_per_client, p.sizes, p.size_std, rng)

    def spread(self) -> float:
        return 2 + 4 * self.params.size_std if self.params.sizes == "normal" else 2
