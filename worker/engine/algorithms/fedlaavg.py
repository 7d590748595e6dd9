"""FedLaAvg: the K available clients absent longest train; the server averages the
latest update of every client, keeping the running mean Ḡ up to date by differences."""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, Context, Footprint, Step
from worker.engine.algorithms.memory import ClientMemory
from worker.engine.algorithms.selection import oldest_first


class FedLaAvg(Algorithm):
    state = ("memory", "mean", "last")
    footprint = Footprint(client_rows=1, vectors=1, round_rows=3)

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.memory = ClientMemory(ctx.n, ctx.dim, ctx.device)
        self.mean = self.zeros(ctx.dim)  # Ḡ = Σ_i α_i G_i (normalised by the local lr)
        self.last = torch.full((ctx.n,), float("-inf"))  # round of last participation

    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Tensor:
        return oldest_first(available, self.last, self.ctx.k, gen)

    def aggregate(self, t: int, w: Tensor, selected: Tensor, deltas: Tensor, lr: float) -> Step:
        self.remember(t, selected, deltas, lr)
        w = w + self.ctx.config.server.lr * lr * self.mean
        return Step(w, self.ctx.alpha * self.memory.filled)

    def remember(self, t: int, selected: Tensor, deltas: Tensor, lr: float) -> None:
        ids = selected.to(self.ctx.device)
        old = self.memory.write(ids, deltas, lr)
        self.mean += self.ctx.alpha[ids] @ (self.memory.g[ids] - old)
        self.last[selected] = float(t)
