"""The recent model versions asynchronous clients start from: a ring of `size` rows of
d floats, version v in row v mod size, so that a batch of clients gathers its starting
models in one indexing operation, whatever versions they started from."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


class VersionRing:
    def __init__(self, size: int, dim: int, device: torch.device) -> None:
        self.size = size
        self.models = torch.zeros(size, dim, device=device)
        self.latest = -1  # the newest version held (−1: none yet)

    def push(self, version: int, w: Tensor) -> None:
        """Hold `w` as `version`, the next after the newest; the oldest leaves a full ring."""
        self.models[version % self.size] = w
        self.latest = version

    def holds(self, versions: Tensor) -> Tensor:
        """Which of the `versions` (≤ the newest) the ring still holds."""
        return versions > self.latest - self.size

    def gather(self, versions: Tensor) -> Tensor:
        """(K, d): the models of the `versions`, all held."""
        return self.models[(versions % self.size).to(self.models.device)]

    def state_dict(self) -> dict[str, Any]:
        return {"models": self.models.detach().cpu().clone(), "latest": self.latest}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.models = state["models"].to(self.models.device)
        self.latest = int(state["latest"])
