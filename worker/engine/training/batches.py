"""Mini-batch indices for local training, drawn once and shared by both backends."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor


@dataclass
class Batches:
    """`rows` (K, S, B): indices into the train tensor; `mask` (K, S): 1 where the
    client takes that step; `real` (K, S): how many of a batch's rows are real, the
    first ones (the rest pad it to B and weigh nothing), or None where all are."""

    rows: Tensor
    mask: Tensor
    real: Tensor | None = None


def batch_indices(
    starts: Tensor, sizes: Tensor, steps: int, unit: str, batch: int, gen: torch.Generator
) -> Batches:
    """The batches of clients owning rows starts[k] : starts[k] + sizes[k].

    `unit="steps"`: S = steps batches per client, rows drawn uniformly with replacement
    from the client's own rows. `unit="epochs"`: each epoch is a fresh permutation of
    the client's n rows cut into ⌈n/B⌉ batches, the last holding n − (⌈n/B⌉ − 1)·B real
    rows (as a shuffling `DataLoader` without `drop_last`); clients with fewer rows run
    fewer steps, and the mask zeroes the steps they do not have.
    """
    k = len(starts)
    if unit == "steps":
        u = torch.rand(k, steps, batch, generator=gen)
        idx = starts[:, None, None] + (u * sizes[:, None, None]).long()
        return Batches(idx, torch.ones(k, steps))
    per_epoch = [math.ceil(int(n) / batch) for n in sizes]
    s_max = steps * max(per_epoch)
    idx = torch.zeros(k, s_max, batch, dtype=torch.long)
    mask = torch.zeros(k, s_max)
    real = torch.full((k, s_max), batch)
    for i in range(k):
        n, start = int(sizes[i]), int(starts[i])
        flat = torch.cat([_epoch(n, batch, gen) for _ in range(steps)]).view(-1, batch) + start
        idx[i, : len(flat)] = flat
        idx[i, len(flat) :] = start
        mask[i, : len(flat)] = 1.0
        real[i, per_epoch[i] - 1 : len(flat) : per_epoch[i]] = n - (per_epoch[i] - 1) * batch
    return Batches(idx, mask, None if bool((real == batch).all()) else real)


def row_weights(real: Tensor, batch: int) -> Tensor:
    """(K, S, B) weights: 1 for each batch's real rows, 0 for its padding."""
    return (torch.arange(batch) < real[..., None]).float()


def _epoch(n: int, batch: int, gen: torch.Generator) -> Tensor:
    """A permutation of range(n), padded with row 0 to whole batches."""
    perm = torch.randperm(n, generator=gen)
    return torch.cat([perm, perm.new_zeros((-n) % batch)])
