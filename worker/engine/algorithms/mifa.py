"""MIFA: every available client (or a uniform sample of K) trains; the server applies
the α-weighted average of the latest update of every client.

`init="wait_all"` leaves the model untouched until every client has reported once.
"""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import Step
from worker.engine.algorithms.fedlaavg import FedLaAvg
from worker.engine.algorithms.selection import uniform_sample


class Mifa(FedLaAvg):
    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Tensor:
        return uniform_sample(available, self.ctx.k, gen)

    def aggregate(self, t: int, w: Tensor, selected: Tensor, deltas: Tensor, lr: float) -> Step:
        self.remember(t, selected, deltas, lr)
        if self.ctx.config.algorithm.mifa.init == "wait_all" and not bool(self.memory.filled.all()):
            return Step(w, self.zeros(self.ctx.n))
        w = w + self.ctx.config.server.lr * lr * self.mean
        return Step(w, self.ctx.alpha * self.memory.filled)
