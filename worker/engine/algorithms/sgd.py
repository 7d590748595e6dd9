"""Centralised SGD on the union of all client data: the reference ceiling.
The loop trains one virtual client holding every sample; availability is ignored.
"""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, Footprint, Plan, Step
from worker.engine.masks import Available
from worker.engine.privacy.guarantee import CENTRAL_TRAINING, Guarantee
from worker.engine.registry import algorithm


@algorithm("sgd", label="centralised SGD")
class CentralSgd(Algorithm):
    privacy = Guarantee(CENTRAL_TRAINING, CENTRAL_TRAINING)
    footprint = Footprint(trainees="central")

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        return Plan(torch.zeros(0, dtype=torch.long), central=True)

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        return Step(deltas[0], self.facts.alpha.clone())
