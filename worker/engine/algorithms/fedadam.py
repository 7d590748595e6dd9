"""FedAdam (Reddi et al.): a uniform sample of the available clients trains; the server
runs Adam without bias correction on their α-weighted mean delta Δ̄:
m ← β₁m + (1−β₁)Δ̄, v ← β₂v + (1−β₂)Δ̄², w ← w + η_s m/(√v + τ)."""

from __future__ import annotations

import torch
from pydantic import Field
from torch import Tensor

from worker.engine.algorithms.base import (
    Algorithm,
    AlgorithmContext,
    Footprint,
    Plan,
    Step,
    renormalised,
    weighted_step,
)
from worker.engine.algorithms.selection import uniform_sample
from worker.engine.masks import Available
from worker.engine.params import Params
from worker.engine.privacy.guarantee import HOLDS
from worker.engine.registry import algorithm


class FedAdamParams(Params):
    beta1: float = Field(0.9, ge=0, lt=1)
    beta2: float = Field(0.99, ge=0, lt=1)
    tau: float = Field(1e-3, gt=0, description="Adaptivity ε.")


@algorithm("fedadam", params=FedAdamParams, label="FedAdam")
class FedAdam(Algorithm):
    privacy = HOLDS
    state = ("m", "v")
    footprint = Footprint(vectors=2)
    params: FedAdamParams

    def __init__(self, params: FedAdamParams, facts: AlgorithmContext) -> None:
        super().__init__(params, facts)
        self.m = self.zeros(facts.dim)
        self.v = self.zeros(facts.dim)

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        return Plan(uniform_sample(available, self.facts.k, gen))

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        ids = plan.selected.to(self.facts.device)
        step = weighted_step(self.facts.n, ids, renormalised(self.facts.alpha, ids), deltas)
        if step.direction is None:
            return step
        p = self.params
        self.m = p.beta1 * self.m + (1 - p.beta1) * step.direction
        self.v = p.beta2 * self.v + (1 - p.beta2) * step.direction**2
        return Step(self.m / (self.v.sqrt() + p.tau), step.weights, entered=step.entered)
