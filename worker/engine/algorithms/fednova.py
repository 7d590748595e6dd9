"""FedNova (Wang et al., "Tackling the Objective Inconsistency Problem in Heterogeneous
Federated Optimization", NeurIPS 2020): updates normalised by the local work done.

Client i ran τ_i local SGD steps (its completed steps: fewer where its time ran out,
`client.partial_work = keep`; different numbers of batches with `client.unit =
epochs`), which weigh its gradients by a_i; its normalised update is Δ_i/‖a_i‖₁, and
the server applies their p-weighted mean scaled by τ_eff = Σ_i p_i ‖a_i‖₁:

    w ← w + η_s · τ_eff · Σ_i p_i Δ_i/‖a_i‖₁,   p = α renormalised over the clients

so a client that did more steps does not pull the model further. ‖a_i‖₁ = τ_i for
plain SGD, and [τ_i − m(1 − m^τ_i)/(1 − m)]/(1 − m) with local momentum m (the buffer
reset each round, `client.momentum_state = reset`). With equal τ_i this is FedAvg's step.
"""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import (
    Algorithm,
    Plan,
    Step,
    Summed,
    renormalised,
)
from worker.engine.algorithms.selection import uniform_sample
from worker.engine.masks import Available
from worker.engine.privacy.guarantee import NORMALISED, Guarantee
from worker.engine.registry import algorithm


@algorithm("fednova", label="FedNova")
class FedNova(Algorithm):
    privacy = Guarantee(central=NORMALISED, local=None)

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        return Plan(uniform_sample(available, self.facts.k, gen))

    def summed(self, t: int, plan: Plan) -> Summed:
        ids = plan.selected.to(self.facts.device)
        p = renormalised(self.facts.alpha, ids)
        tau = plan.steps if plan.steps is not None else plan.planned
        if tau is None:
            raise ValueError("fednova needs each client's local steps (Plan.planned)")
        a = work_norm(tau, self.facts.local_momentum)
        return Summed(p * (p @ a) / a)

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        return self.summed(t, plan).step(self.facts.n, plan.selected.to(self.facts.device), deltas)


def work_norm(tau: Tensor, m: float) -> Tensor:
    """‖a‖₁ of τ local SGD steps with momentum m: τ, or [τ − m(1 − m^τ)/(1 − m)]/(1 − m)."""
    if not m:
        return tau
    return (tau - m * (1 - m**tau) / (1 - m)) / (1 - m)
