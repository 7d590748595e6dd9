"""FedAvg: a uniform sample of the available clients, weights α renormalised over it.

`wait_for_all`: the classic variant that samples K of all N clients and waits (no model
update) until every sampled client has been available and trained once.
"""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, Context, Footprint, Step, renormalised, scatter
from worker.engine.algorithms.selection import uniform_sample


class FedAvg(Algorithm):
    state = ("pending", "reported", "buffer")
    footprint = Footprint(round_rows=2)  # wait_for_all: the buffer and its rescaled copy

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.wait = ctx.config.algorithm.fedavg.wait_for_all
        self.pending = torch.zeros(0, dtype=torch.long)
        self.reported = torch.zeros(0, dtype=torch.bool)
        self.buffer = self.zeros(0, ctx.dim)

    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Tensor:
        if not self.wait:
            return uniform_sample(available, self.ctx.k, gen)
        if len(self.pending) == 0:
            everyone = torch.ones(self.ctx.n, dtype=torch.bool)
            self.pending = uniform_sample(everyone, self.ctx.k, gen)
            self.reported = torch.zeros(len(self.pending), dtype=torch.bool)
            self.buffer = self.zeros(len(self.pending), self.ctx.dim)
        todo = ~self.reported & available.cpu()[self.pending]
        return self.pending[todo]

    def aggregate(self, t: int, w: Tensor, selected: Tensor, deltas: Tensor, lr: float) -> Step:
        if not self.wait:
            return self._apply(w, selected, deltas)
        slots = torch.searchsorted(self.pending, selected)
        self.buffer[slots] = deltas / lr
        self.reported[slots] = True
        if not bool(self.reported.all()):
            return Step(w, self.zeros(self.ctx.n))
        ids, stored = self.pending, self.buffer * lr
        self.pending = torch.zeros(0, dtype=torch.long)
        return self._apply(w, ids, stored)

    def _apply(self, w: Tensor, ids: Tensor, deltas: Tensor) -> Step:
        if len(ids) == 0:
            return Step(w, self.zeros(self.ctx.n))
        a = renormalised(self.ctx.alpha, ids.to(self.ctx.device))
        w = w + self.ctx.config.server.lr * (a @ deltas)
        return Step(w, scatter(self.ctx.n, ids.to(self.ctx.device), a))
