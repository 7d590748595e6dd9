"""Client-selection policies shared by several algorithms."""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.masks import Available, ids_of
from worker.engine.rng import KEPT_STREAMS_UP_TO

# Up to this many candidates, a selection draws a permutation of them: the stream of
# the runs whose streams are kept. Above it, a permutation of 10⁶ candidates cost more
# than the rest of a round (27 ms): Floyd's algorithm draws k numbers instead.
PERMUTED_UP_TO = KEPT_STREAMS_UP_TO


def uniform_sample(available: Available, k: int, gen: torch.Generator) -> Tensor:
    """min(k, |A|) clients drawn uniformly without replacement from the available ones."""
    ids = available.ids
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


def oldest_first(
    available: Available, last: Tensor, k: int, gen: torch.Generator, seen: Tensor | None = None
) -> Tensor:
    """The k available clients whose last participation is oldest (-inf = never);
    ties broken uniformly at random. `seen`, where the caller keeps them: the clients
    whose `last` is finite (ascending, on the CPU); among many candidates, while k of
    them were never seen, the draw then reads the seen ones, not every candidate's
    key (10⁶ clients: a gather and a selection of the k-th key cost 10 ms a round)."""
    ids = available.ids
    if len(ids) > PERMUTED_UP_TO:
        if seen is not None and (drawn := _never_seen_drawn(available, seen, k, gen)) is not None:
            return drawn
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


def _never_seen_drawn(
    available: Available, seen: Tensor, k: int, gen: torch.Generator
) -> Tensor | None:
    """`_oldest_ties_drawn` where at least k candidates were never seen (their key,
    -inf, is then the k-th smallest and none is below it): the same draw of k of them,
    by rank among the candidates less the `seen` ones; None where fewer than k were
    never seen."""
    ids = available.ids
    taken = torch.searchsorted(ids, seen[available.mask.cpu()[seen]])
    m = len(ids) - len(taken)
    if m < k:
        return None
    rank = _pick(m, k, gen) if k < m else torch.arange(m)
    return ids[skipping(taken, rank)].sort().values


def skipping(taken: Tensor, rank: Tensor) -> Tensor:
    """The positions of ranks `rank` among 0, 1, 2, … less the ascending positions
    `taken`: rank r is at r + #{i : taken_i − i ≤ r} (taken_i − i of the free
    positions lie below taken_i)."""
    free_below = taken - torch.arange(len(taken))
    return rank + torch.searchsorted(free_below, rank, right=True)


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
