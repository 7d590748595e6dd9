"""Client-selection policies shared by several algorithms."""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.masks import ids_of


# Up to this many candidates, a selection draws a permutation of them: the stream every
# run drew before populations of a million were admitted (at most 10⁵ clients), so
# those runs record what they did. Above it, a permutation of 10⁶ candidates cost more
# than the rest of a round (27 ms): Floyd's algorithm draws k numbers instead.
PERMUTED_UP_TO = 100_000


def uniform_sample(available: Tensor, k: int, gen: torch.Generator) -> Tensor:
    """min(k, |A|) clients drawn uniformly without replacement from the available ones."""
    ids = ids_of(available).cpu()
    if len(ids) <= k:
        return ids
    return ids[_pick(len(ids), k, gen)].sort().values


def _pick(m: int, k: int, gen: torch.Generator) -> Tensor:
    """k distinct positions of m (k < m), uniformly."""
    if m <= PERMUTED_UP_TO:
        return torch.randperm(m, generator=gen)[:k]
    return floyd(m, torch.rand(k, generator=gen, dtype=torch.float64))


def floyd(m: int, u: Tensor) -> Tensor:
    """k = len(u) distinct positions of m, uniformly (Floyd's algorithm), from k uniform
    numbers in [0, 1): for j = m − k … m − 1, the position ⌊u·(j + 1)⌋, or j where that
    one is taken already."""
    chosen: dict[int, None] = {}
    for j, draw in zip(range(m - len(u), m), u.tolist(), strict=True):
        t = int(draw * (j + 1))
        chosen[j if t in chosen else t] = None
    return torch.tensor(list(chosen), dtype=torch.int64)


def oldest_first(available: Tensor, last: Tensor, k: int, gen: torch.Generator) -> Tensor:
    """The k available clients whose last participation is oldest (-inf = never);
    ties broken uniformly at random."""
    ids = ids_of(available).cpu()
    if len(ids) > PERMUTED_UP_TO:
        return _oldest_ties_drawn(ids, last.cpu()[ids], k, gen)
    shuffled = ids[torch.randperm(len(ids), generator=gen)]
    keys = last.cpu()[shuffled]
    if len(keys) <= k:
        return shuffled.sort().values
    # The first k of a stable sort of `keys`, without sorting all of them (10⁶ clients:
    # a sort took 20 ms a round): every key below the k-th smallest, then the earliest
    # (in shuffled order) of those equal to it.
    kth = keys.kthvalue(k).values
    below = ids_of(keys < kth)
    tied = ids_of(keys == kth)[: k - len(below)]
    return shuffled[torch.cat([below, tied])].sort().values


def _oldest_ties_drawn(ids: Tensor, keys: Tensor, k: int, gen: torch.Generator) -> Tensor:
    """oldest_first among many candidates, without shuffling them all: every key below
    the k-th smallest, then a uniform draw of the rest from those equal to it."""
    kth = keys.kthvalue(k).values
    below = ids_of(keys < kth)
    tied = ids_of(keys == kth)
    wanted = k - len(below)
    if wanted < len(tied):
        tied = tied[_pick(len(tied), wanted, gen)]
    return ids[torch.cat([below, tied])].sort().values
