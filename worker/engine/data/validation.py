"""`eval.validation`: a share of each client's training rows held out for validation.

A tune's objective reads the validation split (`val_*` metrics); the test set stays
untouched until the final runs."""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np
import torch
from torch import Tensor

from worker.engine.data.federated import FederatedData, offsets


@dataclass(frozen=True)
class Validation:
    """The held-out rows of every client, pooled: what the global model is scored on."""

    x: Tensor
    y: Tensor


def held_out(size: int, fraction: float) -> int:
    """Rows a client of `size` training rows holds out: ⌊fraction·size⌋, leaving it at
    least one row to train on."""
    return min(int(np.floor(fraction * size)), max(size - 1, 0))


def hold_out(
    data: FederatedData, fraction: float, rng: np.random.Generator
) -> tuple[FederatedData, Validation | None]:
    """Each client keeps a random share 1 − `fraction` of its training rows (drawn by
    `rng`, in their original order) and gives the rest to the validation split; with
    `fraction` 0 the data are returned as they are and there is no split."""
    if fraction == 0:
        return data, None
    bounds = data.train_offsets.tolist()
    kept: list[np.ndarray] = []
    out: list[np.ndarray] = []
    for lo, hi in pairwise(bounds):
        rows = np.arange(lo, hi)
        chosen = np.zeros(hi - lo, dtype=bool)
        chosen[rng.permutation(hi - lo)[: held_out(hi - lo, fraction)]] = True
        kept.append(rows[~chosen])
        out.append(rows[chosen])
    keep = torch.as_tensor(np.concatenate(kept), dtype=torch.long)
    val = torch.as_tensor(np.concatenate(out), dtype=torch.long)
    trained = replace(
        data,
        x_train=data.x_train[keep],
        y_train=data.y_train[keep],
        train_offsets=offsets([len(rows) for rows in kept]),
    )
    return trained, Validation(data.x_train[val], data.y_train[val])
