"""Client-selection policies shared by several algorithms."""

from __future__ import annotations

import torch
from torch import Tensor


def uniform_sample(available: Tensor, k: int, gen: torch.Generator) -> Tensor:
    """min(k, |A|) clients drawn uniformly without replacement from the available ones."""
    ids = available.nonzero().flatten().cpu()
    if len(ids) <= k:
        return ids
    pick = torch.randperm(len(ids), generator=gen)[:k]
    return ids[pick].sort().values


def oldest_first(available: Tensor, last: Tensor, k: int, gen: torch.Generator) -> Tensor:
    """The k available clients whose last participation is oldest (-inf = never);
    ties broken uniformly at random."""
    ids = available.nonzero().flatten().cpu()
    shuffled = ids[torch.randperm(len(ids), generator=gen)]
    order = torch.argsort(last.cpu()[shuffled], stable=True)
    return shuffled[order[:k]].sort().values
