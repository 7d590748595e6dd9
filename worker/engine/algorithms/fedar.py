"""FedAR: the server keeps every client's latest update G_i and its inactivity τ_i
(0 in a round it reports, +1 otherwise), and applies
w ← w + (η_s/N_t) Σ_i ψ_i G_i with ψ_i = min((τ_i+1)^ρ, ψ_max), or 0 once τ_i ≥ g(t)
(stale updates are dropped); N_t counts the clients ever seen whose ψ_i > 0.

With non-uniform target weights α the 1/N_t becomes α_i / Σ_{counted} α_h (the same
for uniform α). Cut-off g(t): `linear` t0 + t/b, or `sqrt` c·max(√t, √t0).
Metrics: N_t (`fedar_n_t`) and the mean ψ over the counted clients (`fedar_psi_mean`).
"""

from __future__ import annotations

import math
from typing import Literal

import torch
from pydantic import Field
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, AlgorithmContext, Footprint, Plan, Step
from worker.engine.algorithms.memory import MEMORY_FILLED, ClientMemory
from worker.engine.algorithms.selection import uniform_sample
from worker.engine.masks import Available
from worker.engine.metrics import MetricSpec
from worker.engine.params import Params
from worker.engine.privacy.guarantee import MEMORY, Guarantee
from worker.engine.registry import algorithm


class FedArParams(Params):
    rho: float = Field(0.1, ge=0, description="ψ = (τ+1)^ρ.")
    psi_max: float = Field(2.0, gt=0, description="Upper bound of ψ.")
    cutoff: Literal["linear", "sqrt"] = Field("sqrt", description="Form of the cut-off g(t).")
    t0: float = Field(10.0, gt=0, description="linear: t0 + t/b; sqrt: c·max(√t, √t0).")
    b: float = Field(10.0, gt=0, description="linear: slope divisor b.")
    c: float = Field(5.0, gt=0, description="sqrt: factor c.")


N_T = MetricSpec(
    "fedar_n_t",
    "FedAR N_t",
    panel="algorithm",
    unit="clients",
    description="Clients whose latest update enters the model (ψ > 0).",
)
PSI_MEAN = MetricSpec(
    "fedar_psi_mean",
    "FedAR mean ψ",
    panel="algorithm",
    description="Mean inactivity weight ψ over the clients counted in N_t.",
)


def cutoff(t: int, cfg: FedArParams) -> float:
    """g(t): inactivity from which a client's latest update is dropped."""
    if cfg.cutoff == "linear":
        return cfg.t0 + t / cfg.b
    return cfg.c * math.sqrt(max(t, cfg.t0))


def psi(tau: Tensor, seen: Tensor, limit: float, cfg: FedArParams) -> Tensor:
    """ψ_i for inactivity `tau`; 0 for clients never seen or inactive for ≥ `limit`."""
    weight = ((tau + 1.0) ** cfg.rho).clamp(max=cfg.psi_max)
    return torch.where(seen & (tau < limit), weight, torch.zeros_like(weight))


@algorithm("fedar", params=FedArParams, label="FedAR")
class FedAr(Algorithm):
    privacy = Guarantee(central=MEMORY, local=None)
    state = ("memory", "tau")
    metric_specs = (N_T, PSI_MEAN, MEMORY_FILLED)
    footprint = Footprint(client_rows=1, round_rows=2, memory_passes=1)
    params: FedArParams

    def __init__(self, params: FedArParams, facts: AlgorithmContext) -> None:
        super().__init__(params, facts)
        self.memory = ClientMemory(facts.n, facts.dim, facts.device)
        self.tau = torch.zeros(facts.n, dtype=torch.float64)

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        return Plan(uniform_sample(available, self.facts.k, gen))

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        selected = plan.selected
        self.tau += 1
        self.tau[selected] = 0
        if len(selected):
            self.memory.write(selected.to(self.facts.device), deltas, lr)
        seen = self.memory.filled.cpu()
        p = psi(self.tau, seen, cutoff(t, self.params), self.params)
        counted = p > 0
        n_t = int(counted.sum())
        metrics = {N_T.name: float(n_t), **self.memory.filled_share()}
        if n_t == 0:
            return Step(None, self.zeros(self.facts.n), metrics)
        metrics[PSI_MEAN.name] = float(p[counted].mean())
        alpha = self.facts.alpha.cpu().double()
        weights = (p * alpha / alpha[counted].sum()).to(self.facts.alpha)
        return Step(lr * (weights @ self.memory.g), weights, metrics)
