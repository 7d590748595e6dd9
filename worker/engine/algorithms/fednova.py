"""FedNova (Wang et al., "Tackling the Objective Inconsistency Problem in Heterogeneous
Federated Optimization", NeurIPS 2020): updates normalised by the local work done.

Client i ran τ_i local SGD steps (its completed steps: fewer where its time ran out,
`client.partial_work = keep`; different numbers of batches with `client.unit =
epochs`). Its normalised update is Δ_i/τ_i; the server applies their p-weighted mean
scaled by the effective number of steps τ_eff = Σ_i p_i τ_i:

    w ← w + η_s · τ_eff · Σ_i p_i Δ_i/τ_i,   p = α renormalised over the clients

so a client that did more steps does not pull the model further. With equal τ_i this
is FedAvg's step. (τ_i is ‖a_i‖₁ of FedNova's plain local SGD.)
"""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import (
    Algorithm,
    Plan,
    Step,
    renormalised,
    weighted_step,
)
from worker.engine.algorithms.selection import uniform_sample
from worker.engine.registry import algorithm


@algorithm("fednova", label="FedNova")
class FedNova(Algorithm):
    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Plan:
        return Plan(uniform_sample(available, self.facts.k, gen))

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        ids = plan.selected.to(self.facts.device)
        p = renormalised(self.facts.alpha, ids)
        tau = plan.steps if plan.steps is not None else plan.planned
        if tau is None:
            raise ValueError("fednova needs each client's local steps (Plan.planned)")
        return weighted_step(self.facts.n, ids, p * (p @ tau) / tau, deltas)
