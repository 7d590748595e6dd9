"""The availability-model interface: a reproducible boolean vector of clients per round."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import torch
from torch import Tensor


class Availability(ABC):
    """`mask(t)` is called with t = 0, 1, 2, ...; `pi` is the true availability π_k.

    `lam` is the correlation λ_k (second eigenvalue of the client's chain) where the
    model defines one. Randomness for round t comes from a generator derived from
    (seed, t), so only models with memory (Markov) carry state across rounds.
    """

    pi: Tensor
    lam: Tensor | None = None

    @abstractmethod
    def mask(self, t: int) -> Tensor: ...

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        del state


class Always(Availability):
    def __init__(self, n: int) -> None:
        self.pi = torch.ones(n, dtype=torch.float64)
        self.lam = torch.zeros(n, dtype=torch.float64)

    def mask(self, t: int) -> Tensor:
        return torch.ones(len(self.pi), dtype=torch.bool)
