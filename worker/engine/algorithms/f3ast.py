"""F3AST: π̂ by exponential averaging of availability (β = 1/rounds unless set); among
the available clients the K with the largest α_k²/π̂_k² train, with weights α_k/π̂_k."""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, Context, Step, scatter


class F3ast(Algorithm):
    state = ("pi",)

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        beta = ctx.config.algorithm.f3ast.beta
        self.beta = beta if beta is not None else 1.0 / ctx.config.rounds
        self.pi = torch.full((ctx.n,), 0.5, dtype=torch.float64)  # uninformed start

    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Tensor:
        self.pi = (1 - self.beta) * self.pi + self.beta * available.cpu().double()
        ids = available.nonzero().flatten().cpu()
        score = (self.ctx.alpha.cpu().double() / self.pi)[ids] ** 2
        top = torch.argsort(score, descending=True, stable=True)[: self.ctx.k]
        return ids[top].sort().values

    def aggregate(self, t: int, w: Tensor, selected: Tensor, deltas: Tensor, lr: float) -> Step:
        if len(selected) == 0:
            return Step(w, self.zeros(self.ctx.n))
        ids = selected.to(self.ctx.device)
        a = (self.ctx.alpha / self.pi.to(self.ctx.alpha))[ids]
        w = w + self.ctx.config.server.lr * (a @ deltas)
        return Step(w, scatter(self.ctx.n, ids, a))
