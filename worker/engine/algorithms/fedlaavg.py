"""FedLaAvg: the K available clients absent longest train; the server averages the
latest update of every client, keeping the running mean Ḡ up to date by differences."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, AlgorithmContext, Footprint, Plan, Step
from worker.engine.algorithms.memory import MEMORY_FILLED, ClientMemory
from worker.engine.algorithms.selection import oldest_first
from worker.engine.masks import Available
from worker.engine.privacy.guarantee import MEMORY, Guarantee
from worker.engine.registry import algorithm


@algorithm("fedlaavg", label="FedLaAvg")
class FedLaAvg(Algorithm):
    privacy = Guarantee(central=MEMORY, local=None)
    state = ("memory", "mean", "last")
    metric_specs = (MEMORY_FILLED,)
    footprint = Footprint(client_rows=1, vectors=1, round_rows=3)

    def __init__(self, params: Any, facts: AlgorithmContext) -> None:
        super().__init__(params, facts)
        self.memory = ClientMemory(facts.n, facts.dim, facts.device)
        self.mean = self.zeros(facts.dim)  # Ḡ = Σ_i α_i G_i (normalised by the local lr)
        self.last = torch.full((facts.n,), float("-inf"))  # round of last participation

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        return Plan(oldest_first(available, self.last, self.facts.k, gen, self.memory.ids))

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        self.remember(t, plan.selected, deltas, lr)
        return self.average(lr)

    def average(self, lr: float) -> Step:
        """Ḡ (times the current lr), every client that reported entering with α_i."""
        weights = self.facts.alpha[self.memory.ids.to(self.facts.alpha.device)]
        return Step(lr * self.mean, weights, self.memory.filled_share(), self.memory.ids)

    def remember(self, t: int, selected: Tensor, deltas: Tensor, lr: float) -> None:
        ids = selected.to(self.facts.device)
        old = self.memory.write(ids, deltas, lr)
        self.mean += self.facts.alpha[ids] @ (self.memory.g[ids] - old)
        self.last[selected] = float(t)
