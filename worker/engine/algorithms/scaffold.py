"""SCAFFOLD with option II control variates (Karimireddy et al.).

Client i trains with the gradient correction c − c_i, then
c_i⁺ = c_i − c − Δ_i/(S·η_l) for its S local steps; the server applies
w ← w + η_s Σ_S α̃_i Δ_i and c ← c + Σ_S α_i (c_i⁺ − c_i) (= (1/N) Σ_S Δc_i for uniform α).
With zero control variates a round is exactly a FedAvg round.
"""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, Context, Footprint, Step, renormalised, scatter
from worker.engine.algorithms.selection import uniform_sample
from worker.engine.errors import ConfigError


class Scaffold(Algorithm):
    state = ("c", "controls")
    footprint = Footprint(client_rows=1, vectors=1, round_rows=3)  # corrections, c_i⁺ − c_i

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        client = ctx.config.client
        if client.unit != "steps":
            raise ConfigError(
                "client.unit: scaffold divides by the number of local steps; use 'steps'"
            )
        self.steps = client.local_steps
        self.c = self.zeros(ctx.dim)
        self.controls = self.zeros(ctx.n, ctx.dim)

    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Tensor:
        return uniform_sample(available, self.ctx.k, gen)

    def correction(self, selected: Tensor) -> Tensor | None:
        return self.c - self.controls[selected.to(self.ctx.device)]

    def aggregate(self, t: int, w: Tensor, selected: Tensor, deltas: Tensor, lr: float) -> Step:
        if len(selected) == 0:
            return Step(w, self.zeros(self.ctx.n))
        ids = selected.to(self.ctx.device)
        a = renormalised(self.ctx.alpha, ids)
        change = -self.c - deltas / (self.steps * lr)  # c_i⁺ − c_i
        self.controls[ids] += change
        self.c = self.c + self.ctx.alpha[ids] @ change
        w = w + self.ctx.config.server.lr * (a @ deltas)
        return Step(w, scatter(self.ctx.n, ids, a))
