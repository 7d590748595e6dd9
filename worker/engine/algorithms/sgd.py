"""Centralised SGD on the union of all client data: the reference ceiling.

The loop trains one virtual client holding every sample; availability is ignored.
"""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, Footprint, Step


class CentralSgd(Algorithm):
    centralised = True
    footprint = Footprint(trainees="central")

    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Tensor:
        return torch.zeros(0, dtype=torch.long)

    def aggregate(self, t: int, w: Tensor, selected: Tensor, deltas: Tensor, lr: float) -> Step:
        return Step(w + self.ctx.config.server.lr * deltas[0], self.ctx.alpha.clone())
