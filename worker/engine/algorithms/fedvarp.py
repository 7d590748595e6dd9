"""FedVARP: variance reduction with stale updates,
v = ȳ + Σ_S α̃_i (Δ_i − y_i), w ← w + η_s v, then y_i ← Δ_i for the trained clients."""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, Context, Footprint, Step, renormalised
from worker.engine.algorithms.memory import ClientMemory
from worker.engine.algorithms.selection import uniform_sample


class FedVarp(Algorithm):
    state = ("memory",)
    footprint = Footprint(client_rows=1, round_rows=3, memory_passes=1)

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.memory = ClientMemory(ctx.n, ctx.dim, ctx.device)

    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Tensor:
        return uniform_sample(available, self.ctx.k, gen)

    def aggregate(self, t: int, w: Tensor, selected: Tensor, deltas: Tensor, lr: float) -> Step:
        alpha = self.ctx.alpha
        weights = alpha * self.memory.filled
        v = lr * (alpha @ self.memory.g)  # ȳ, without copying the (N, d) memory
        if len(selected):
            ids = selected.to(self.ctx.device)
            a = renormalised(alpha, ids)
            v = v + a @ (deltas - lr * self.memory.g[ids])
            weights[ids] = a
            self.memory.write(ids, deltas, lr)
        return Step(w + self.ctx.config.server.lr * v, weights)
