"""Split a labelled pool among clients: iid, by_class, dirichlet, label_swap."""

from __future__ import annotations

import numpy as np
import torch

from worker.engine.data.federated import FederatedData
from worker.engine.errors import ConfigError
from worker.engine.sections import DataSection


class PartitionError(ConfigError):
    pass


def partition(labels: np.ndarray, cfg: DataSection, rng: np.random.Generator) -> list[np.ndarray]:
    """Row indices of the pool for each of the `cfg.n_clients` clients."""
    if cfg.partition in ("iid", "label_swap"):
        rows = iid(len(labels), cfg.n_clients, rng)
    elif cfg.partition == "by_class":
        rows = by_class(labels, cfg.n_clients, cfg.classes_per_client, cfg.sizes, cfg.size_std, rng)
    elif cfg.partition == "dirichlet":
        rows = dirichlet(labels, cfg.n_clients, cfg.dirichlet_alpha, rng)
    else:
        raise PartitionError(f"data.partition: {cfg.partition!r} does not apply to {cfg.dataset}")
    if min(len(r) for r in rows) == 0:
        raise PartitionError(without_data(cfg.n_clients, len(labels)))
    return rows


def without_data(n_clients: int, samples: int) -> str:
    """Why a partition of `samples` rows among `n_clients` clients cannot run."""
    return (
        f"data.n_clients: {n_clients} clients leave some without data ({samples} samples); "
        "use fewer clients"
    )


def iid(n: int, n_clients: int, rng: np.random.Generator) -> list[np.ndarray]:
    return list(np.array_split(rng.permutation(n), n_clients))


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
        counts = _split_counts(len(rows), share)
        for k, chunk in zip(owners, np.split(rows, np.cumsum(counts)[:-1]), strict=True):
            parts[k].append(chunk)
    return [np.concatenate(p) if p else np.zeros(0, dtype=int) for p in parts]


def _split_counts(total: int, share: np.ndarray) -> np.ndarray:
    """Counts summing to `total`, proportional to `share`, at least 1 each where possible."""
    floor = 1 if total >= len(share) else 0
    rest = total - floor * len(share)
    cuts = np.floor(np.cumsum(share) / share.sum() * rest).astype(int)
    return floor + np.diff(np.concatenate([[0], cuts]))


def dirichlet(
    labels: np.ndarray, n_clients: int, alpha: float, rng: np.random.Generator
) -> list[np.ndarray]:
    """Each class is split among clients with proportions ~ Dir(α) (Hsu et al.)."""
    n_classes = int(labels.max()) + 1
    parts: list[list[np.ndarray]] = [[] for _ in range(n_clients)]
    for cls in range(n_classes):
        rows = rng.permutation(np.flatnonzero(labels == cls))
        props = rng.dirichlet(np.full(n_clients, alpha))
        cuts = np.floor(np.cumsum(props) * len(rows)).astype(int)
        for k, chunk in enumerate(np.split(rows, cuts[:-1])):
            parts[k].append(chunk)
    return [np.concatenate(p) for p in parts]


def contiguous_clusters(n_clients: int, n_clusters: int) -> np.ndarray:
    """Cluster ids in contiguous blocks: the first N/n_clusters clients form cluster 0."""
    return (np.arange(n_clients) * n_clusters) // n_clients


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
