"""A partition as a person looks at it before a run starts and on its page: each
client's sample counts, and a clients × classes matrix of its train samples.

Every client is shown up to `max_clients` (at most `MAX_SHOWN`); above, an evenly
spaced sample of them (ids 0, …, N−1 at equal steps, the first and the last included),
while the totals are over every client.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from worker.engine.data.federated import FederatedData

MAX_SHOWN = 1000


@dataclass(frozen=True)
class PartitionView:
    """`clients`: the ids shown, ascending; `sizes`, `test_sizes`: their train and test
    samples; `counts`: their train samples of each class, one row a client (no columns
    for a regression dataset); `total`, `smallest`, `largest`: train samples over every
    client; `sampled`: whether `clients` is a sample of them."""

    n_clients: int
    n_classes: int
    clients: list[int]
    sizes: list[int]
    test_sizes: list[int]
    counts: list[list[int]]
    total: int
    smallest: int
    largest: int
    sampled: bool


def shown_clients(n_clients: int, cap: int) -> np.ndarray:
    """Every id below `cap` clients; otherwise `cap` evenly spaced ids, 0 and N−1 among them."""
    if n_clients <= cap:
        return np.arange(n_clients)
    return np.linspace(0, n_clients - 1, cap).round().astype(np.int64)


def partition_view(data: FederatedData, max_clients: int = MAX_SHOWN) -> PartitionView:
    """The view of `data`, showing at most `max_clients` clients (capped at `MAX_SHOWN`)."""
    sizes = data.sizes.cpu().numpy()
    ids = shown_clients(data.n_clients, min(max_clients, MAX_SHOWN))
    classes = data.n_classes if data.task == "classification" else 0
    offsets = data.train_offsets.cpu().numpy()
    labels = data.y_train.cpu().numpy()
    counts = [
        np.bincount(labels[offsets[k] : offsets[k + 1]], minlength=classes).tolist()
        if classes
        else []
        for k in ids.tolist()
    ]
    return PartitionView(
        n_clients=data.n_clients,
        n_classes=classes,
        clients=ids.tolist(),
        sizes=sizes[ids].tolist(),
        test_sizes=data.test_offsets.diff().cpu().numpy()[ids].tolist(),
        counts=counts,
        total=int(sizes.sum()),
        smallest=int(sizes.min()),
        largest=int(sizes.max()),
        sampled=len(ids) < data.n_clients,
    )
