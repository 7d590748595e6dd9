"""Unbiased (CA-Fed's baseline): every available client trains and enters with weight
α_i/π̂_i, unnormalised, so the update is unbiased for the target objective."""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, Context, Footprint, Step, scatter
from worker.engine.algorithms.estimators import AvailabilityEstimate, empty_counts, observe
from worker.engine.config import EstimateConfig


class Unbiased(Algorithm):
    state = ("counts",)
    footprint = Footprint(trainees="available")

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        cfg = self.estimate_config()
        self.estimate = AvailabilityEstimate(cfg.estimator, cfg.prior, ctx.pi, ctx.lam)
        self.counts = empty_counts(ctx.n)

    def estimate_config(self) -> EstimateConfig:
        return self.ctx.config.algorithm.unbiased

    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Tensor:
        self.counts = observe(self.counts, available)
        return available.nonzero().flatten().cpu()

    def client_weights(self, ids: Tensor) -> Tensor:
        """α_i/π̂_i of the clients `ids`."""
        pi = self.estimate.pi(self.counts).to(self.ctx.alpha)
        return (self.ctx.alpha / pi)[ids]

    def aggregate(self, t: int, w: Tensor, selected: Tensor, deltas: Tensor, lr: float) -> Step:
        if len(selected) == 0:
            return Step(w, self.zeros(self.ctx.n))
        ids = selected.to(self.ctx.device)
        a = self.client_weights(ids)
        w = w + self.ctx.config.server.lr * (a @ deltas)
        return Step(w, scatter(self.ctx.n, ids, a))
