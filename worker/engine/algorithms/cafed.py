"""CA-Fed (Rodio et al.): weights q_k = α_k/π̂_k, minus the clients whose exclusion lowers
the estimated error ε̂(q) = ⟨F̂ − F̂*, p(q)⟩ + TV(α, p(q))²·Γ̂, p(q)_k ∝ π̂_k q_k.

Every available client reports its loss on one batch (a probe, not an update); the
available clients with q_k > 0 train and enter with weight q_k (unnormalised).
Before any loss has been reported every gap is 0, so nothing is excluded.
"""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, Context, Footprint, Step, scatter
from worker.engine.algorithms.estimators import (
    AvailabilityEstimate,
    empty_counts,
    filter_losses,
    observe,
)


def estimated_error(q: Tensor, alpha: Tensor, pi: Tensor, gap: Tensor, gamma: float) -> float:
    """ε̂(q): optimisation error of the biased objective plus its bias term."""
    p = pi * q / (pi * q).sum()
    tv = 0.5 * float((alpha - p).abs().sum())
    return float(gap @ p) + tv**2 * gamma


def allocation(alpha: Tensor, pi: Tensor, lam: Tensor, gap: Tensor, tau: float) -> Tensor:
    """q after the greedy exclusions: clients in descending λ̂, then ascending π̂; an
    exclusion stays if ε̂ falls, by at least τ (all float64 tensors of length N)."""
    q = alpha / pi
    gamma = float(gap.max())
    best = estimated_error(q, alpha, pi, gap, gamma)
    for order in (torch.argsort(-lam, stable=True), torch.argsort(pi, stable=True)):
        for k in order.tolist():
            trial = q.clone()
            trial[k] = 0.0
            if float(trial.sum()) == 0.0:
                break
            err = estimated_error(trial, alpha, pi, gap, gamma)
            if best - err > 0 and best - err >= tau:
                q, best = trial, err
    return q


class CaFed(Algorithm):
    state = ("counts", "loss", "loss_min", "reported", "q")
    footprint = Footprint(trainees="available", pairwise=True)

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.cfg = ctx.config.algorithm.cafed
        self.estimate = AvailabilityEstimate(self.cfg.estimator, self.cfg.prior, ctx.pi, ctx.lam)
        self.counts = empty_counts(ctx.n)
        self.loss = torch.zeros(ctx.n, dtype=torch.float64)  # F̂
        self.loss_min = torch.zeros(ctx.n, dtype=torch.float64)  # F̂*
        self.reported = torch.zeros(ctx.n, dtype=torch.bool)
        self.q = torch.zeros(ctx.n, dtype=torch.float64)

    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Tensor:
        self.counts = observe(self.counts, available)
        ids = available.nonzero().flatten().cpu()
        if t > 0 and len(ids):  # from round 1 on, clients hold a model from the server
            losses = self.ctx.probe_loss(w, ids.to(self.ctx.device), t)
            self.loss, self.loss_min, self.reported = filter_losses(
                self.loss, self.loss_min, self.reported, ids, losses, self.cfg.beta
            )
        alpha = self.ctx.alpha.cpu().double()
        pi, lam = self.estimate.pi(self.counts), self.estimate.lam(self.counts)
        self.q = allocation(alpha, pi, lam, self.loss - self.loss_min, self.cfg.tau)
        return ids[self.q[ids] > 0]

    def aggregate(self, t: int, w: Tensor, selected: Tensor, deltas: Tensor, lr: float) -> Step:
        ids = selected.to(self.ctx.device)
        a = self.q[selected].to(self.ctx.alpha)
        if len(selected):
            w = w + self.ctx.config.server.lr * (a @ deltas)
        return Step(w, scatter(self.ctx.n, ids, a))
