"""FedVARP: variance reduction with stale updates,
v = ȳ + Σ_S α̃_i (Δ_i − y_i), w ← w + η_s v, then y_i ← Δ_i for the trained clients."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from worker.engine.algorithms.base import (
    Algorithm,
    AlgorithmContext,
    Footprint,
    Plan,
    Step,
    renormalised,
)
from worker.engine.algorithms.memory import MEMORY_FILLED, ClientMemory
from worker.engine.algorithms.selection import uniform_sample
from worker.engine.masks import Available
from worker.engine.privacy.guarantee import MEMORY, Guarantee
from worker.engine.registry import algorithm


@algorithm("fedvarp", label="FedVARP")
class FedVarp(Algorithm):
    privacy = Guarantee(central=MEMORY, local=None)
    state = ("memory",)
    metric_specs = (MEMORY_FILLED,)
    footprint = Footprint(client_rows=1, round_rows=3, memory_passes=1)

    def __init__(self, params: Any, facts: AlgorithmContext) -> None:
        super().__init__(params, facts)
        self.memory = ClientMemory(facts.n, facts.dim, facts.device)

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        return Plan(uniform_sample(available, self.facts.k, gen))

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        alpha = self.facts.alpha
        weights = alpha * self.memory.filled
        v = lr * (alpha @ self.memory.g)  # ȳ, without copying the (N, d) memory
        if len(plan.selected):
            ids = plan.selected.to(self.facts.device)
            a = renormalised(alpha, ids)
            v = v + a @ (deltas - lr * self.memory.g[ids])
            weights[ids] = a
            self.memory.write(ids, deltas, lr)
        return Step(v, weights, self.memory.filled_share())
