"""Mini-batch indices for local training, drawn once and shared by both backends."""

from __future__ import annotations

import math

import torch
from torch import Tensor


def batch_indices(
    starts: Tensor, sizes: Tensor, steps: int, unit: str, batch: int, gen: torch.Generator
) -> tuple[Tensor, Tensor]:
    """Row indices (K, S, B) into the train tensor and a step mask (K, S).

    `unit="steps"`: S = steps batches per client, rows drawn uniformly with replacement
    from the client's own rows. `unit="epochs"`: each epoch is a fresh permutation of the
    client's rows, padded with random rows to whole batches; clients with fewer rows run
    fewer steps, and the mask zeroes the steps they do not have.
    """
    k = len(starts)
    if unit == "steps":
        u = torch.rand(k, steps, batch, generator=gen)
        idx = starts[:, None, None] + (u * sizes[:, None, None]).long()
        return idx, torch.ones(k, steps)
    per_client = [steps * math.ceil(int(n) / batch) for n in sizes]
    s_max = max(per_client)
    idx = torch.zeros(k, s_max, batch, dtype=torch.long)
    mask = torch.zeros(k, s_max)
    for i in range(k):
        n, start = int(sizes[i]), int(starts[i])
        rows = [_epoch(n, batch, gen) for _ in range(steps)]
        flat = torch.cat(rows).view(-1, batch) + start
        idx[i, : len(flat)] = flat
        idx[i, len(flat) :] = start
        mask[i, : per_client[i]] = 1.0
    return idx, mask


def _epoch(n: int, batch: int, gen: torch.Generator) -> Tensor:
    perm = torch.randperm(n, generator=gen)
    pad = (-n) % batch
    if pad:
        perm = torch.cat([perm, torch.randint(n, (pad,), generator=gen)])
    return perm
