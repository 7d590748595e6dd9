"""FedAdam (Reddi et al.): a uniform sample of the available clients trains; the server
runs Adam without bias correction on their α-weighted mean delta Δ̄:
m ← β₁m + (1−β₁)Δ̄, v ← β₂v + (1−β₂)Δ̄², w ← w + η_s m/(√v + τ)."""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, Context, Footprint, Step, renormalised, scatter
from worker.engine.algorithms.selection import uniform_sample


class FedAdam(Algorithm):
    state = ("m", "v")
    footprint = Footprint(vectors=2)

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.m = self.zeros(ctx.dim)
        self.v = self.zeros(ctx.dim)

    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Tensor:
        return uniform_sample(available, self.ctx.k, gen)

    def aggregate(self, t: int, w: Tensor, selected: Tensor, deltas: Tensor, lr: float) -> Step:
        if len(selected) == 0:
            return Step(w, self.zeros(self.ctx.n))
        cfg = self.ctx.config.algorithm.fedadam
        ids = selected.to(self.ctx.device)
        a = renormalised(self.ctx.alpha, ids)
        mean = a @ deltas
        self.m = cfg.beta1 * self.m + (1 - cfg.beta1) * mean
        self.v = cfg.beta2 * self.v + (1 - cfg.beta2) * mean**2
        w = w + self.ctx.config.server.lr * self.m / (self.v.sqrt() + cfg.tau)
        return Step(w, scatter(self.ctx.n, ids, a))
