"""FedAR: the server keeps every client's latest update G_i and its inactivity τ_i
(0 in a round it reports, +1 otherwise), and applies
w ← w + (η_s/N_t) Σ_i ψ_i G_i with ψ_i = min((τ_i+1)^ρ, ψ_max), or 0 once τ_i ≥ g(t)
(stale updates are dropped); N_t counts the clients ever seen whose ψ_i > 0.

With non-uniform target weights α the 1/N_t becomes α_i / Σ_{counted} α_h (the same
for uniform α). Cut-off g(t): `linear` t0 + t/b, or `sqrt` c·max(√t, √t0).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, Context, Footprint, Step
from worker.engine.algorithms.memory import ClientMemory
from worker.engine.algorithms.selection import uniform_sample
from worker.engine.config import FedArConfig


def cutoff(t: int, cfg: FedArConfig) -> float:
    """g(t): inactivity from which a client's latest update is dropped."""
    if cfg.cutoff == "linear":
        return cfg.t0 + t / cfg.b
    return cfg.c * math.sqrt(max(t, cfg.t0))


def psi(tau: Tensor, seen: Tensor, limit: float, cfg: FedArConfig) -> Tensor:
    """ψ_i for inactivity `tau`; 0 for clients never seen or inactive for ≥ `limit`."""
    weight = ((tau + 1.0) ** cfg.rho).clamp(max=cfg.psi_max)
    return torch.where(seen & (tau < limit), weight, torch.zeros_like(weight))


class FedAr(Algorithm):
    state = ("memory", "tau")
    footprint = Footprint(client_rows=1, round_rows=2, memory_passes=1)

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.memory = ClientMemory(ctx.n, ctx.dim, ctx.device)
        self.tau = torch.zeros(ctx.n, dtype=torch.float64)

    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Tensor:
        return uniform_sample(available, self.ctx.k, gen)

    def aggregate(self, t: int, w: Tensor, selected: Tensor, deltas: Tensor, lr: float) -> Step:
        cfg = self.ctx.config.algorithm.fedar
        self.tau += 1
        self.tau[selected] = 0
        if len(selected):
            self.memory.write(selected.to(self.ctx.device), deltas, lr)
        seen = self.memory.filled.cpu()
        p = psi(self.tau, seen, cutoff(t, cfg), cfg)
        counted = p > 0
        if not bool(counted.any()):
            return Step(w, self.zeros(self.ctx.n))
        alpha = self.ctx.alpha.cpu().double()
        weights = (p * alpha / alpha[counted].sum()).to(self.ctx.alpha)
        w = w + self.ctx.config.server.lr * lr * (weights @ self.memory.g)
        return Step(w, weights)
