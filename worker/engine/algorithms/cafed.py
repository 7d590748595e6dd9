"""CA-Fed (Rodio et al.): weights q_k = α_k/π̂_k, minus the clients whose exclusion lowers
the estimated error ε̂(q) = ⟨F̂ − F̂*, p(q)⟩ + TV(α, p(q))²·Γ̂, p(q)_k ∝ π̂_k q_k, with
Γ̂ = max_k (F̂_k − F̂*_k).

Every available client reports a loss of the current model (a probe, not an update):

- `loss_probe = "batch"`: on one training batch, from round 1 (clients hold a model
  from the server only then);
- `loss_probe = "test_split"`: on its whole test split, from round 0 (the authors' code).

F̂* is the running minimum of the reported losses (`optimum = "running_min"`: every gap
starts at 0, so nothing is excluded before the losses move), each client's local
optimum, computed once (`optimum = "local_solver"`, `training/optimum.py`; the authors'
code on vector data), or 0 (`optimum = "zero"`: the authors' code on images, whose
scikit-learn solver rejects (n, 28, 28) arrays and falls back to 0). The greedy search
visits the clients in descending |λ̂|, then ascending π̂; an exclusion stays if ε̂ falls
by at least τ, strictly, or also when it stays equal with `accept_ties` (the authors'
code: with τ = 0 it keeps exclusions that change nothing).
The available clients with q_k > 0 train and enter with weight q_k (unnormalised).
"""

from __future__ import annotations

from typing import Literal

import torch
from pydantic import Field
from torch import Tensor

from worker.engine.algorithms.base import (
    Algorithm,
    AlgorithmContext,
    Footprint,
    Plan,
    Step,
    Summed,
)
from worker.engine.algorithms.estimators import (
    AvailabilityEstimate,
    empty_counts,
    filter_losses,
    observe,
)
from worker.engine.masks import Available
from worker.engine.metrics import MetricSpec
from worker.engine.params import Params, RunShape
from worker.engine.privacy.guarantee import LOSS_REPORTS, Guarantee
from worker.engine.registry import algorithm


class CaFedParams(Params):
    estimator: Literal["bayesian", "oracle"] = Field(
        "bayesian", description="π, λ estimated from history or read from the model."
    )
    beta: float = Field(0.5, ge=0, lt=1, description="AR filter weight of the loss estimate.")
    tau: float = Field(0.0, ge=0, description="Keep an exclusion if ε̂ falls by at least τ.")
    prior: float = Field(1.0, gt=0, description="Beta prior pseudo-count for π̂.")
    loss_probe: Literal["batch", "test_split"] = Field(
        "batch",
        description="Loss each available client reports: on one training batch from round "
        "1, or on its whole test split from round 0 (the authors' code).",
    )
    optimum: Literal["running_min", "local_solver", "zero"] = Field(
        "running_min",
        description="F̂*: the running minimum of reported losses, or each client's "
        "regularised logistic optimum computed once (the authors' code on vectors), or 0 "
        "(the authors' code on images, where its solver fails).",
    )
    accept_ties: bool = Field(
        False, description="Keep an exclusion that leaves ε̂ unchanged (the authors' code)."
    )

    def check_run(self, run: RunShape) -> None:
        if self.optimum == "local_solver" and run.data.kind == "regression":
            raise ValueError(
                "algorithm.cafed.optimum: local_solver needs a classification dataset "
                f"(a logistic loss); {run.dataset} is a regression task"
            )


EXCLUDED = MetricSpec(
    "cafed_excluded",
    "CA-Fed excluded clients",
    panel="algorithm",
    unit="clients",
    description="Clients whose weight q_k the greedy search set to 0 this round.",
)


def estimated_error(q: Tensor, alpha: Tensor, pi: Tensor, gap: Tensor, gamma: float) -> float:
    """ε̂(q): optimisation error of the biased objective plus its bias term."""
    p = pi * q / (pi * q).sum()
    tv = 0.5 * float((alpha - p).abs().sum())
    return float(gap @ p) + tv**2 * gamma


def allocation(
    alpha: Tensor, pi: Tensor, lam: Tensor, gap: Tensor, tau: float, ties: bool = False
) -> Tensor:
    """q after the greedy exclusions: clients in descending |λ̂|, then ascending π̂; an
    exclusion stays if ε̂ falls by at least τ (and by more than 0 unless `ties`); all
    float64 tensors of length N."""
    q = alpha / pi
    gamma = float(gap.max())
    best = estimated_error(q, alpha, pi, gap, gamma)
    for order in (torch.argsort(-lam.abs(), stable=True), torch.argsort(pi, stable=True)):
        for k in order.tolist():
            trial = q.clone()
            trial[k] = 0.0
            if float(trial.sum()) == 0.0:
                break
            err = estimated_error(trial, alpha, pi, gap, gamma)
            if best - err >= tau and (ties or best - err > 0):
                q, best = trial, err
    return q


@algorithm("cafed", params=CaFedParams, label="CA-Fed")
class CaFed(Algorithm):
    privacy = Guarantee(LOSS_REPORTS, LOSS_REPORTS)
    state = ("counts", "loss", "loss_min", "started", "q")
    metric_specs = (EXCLUDED,)
    footprint = Footprint(trainees="available", pairwise=True)
    params: CaFedParams

    def __init__(self, params: CaFedParams, facts: AlgorithmContext) -> None:
        super().__init__(params, facts)
        self.estimate = AvailabilityEstimate(params.estimator, params.prior, facts.pi, facts.lam)
        self.counts = empty_counts(facts.n)
        self.loss = torch.zeros(facts.n, dtype=torch.float64)  # F̂
        self.loss_min = torch.zeros(facts.n, dtype=torch.float64)  # F̂* (running minimum)
        self.started = False  # losses reported yet
        self.q = torch.zeros(facts.n, dtype=torch.float64)
        self.optima: Tensor | None = None  # F̂* (local solver), computed at the first round

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        self.counts = observe(self.counts, available.mask)
        ids = available.ids
        if len(ids) and (t > 0 or self.params.loss_probe == "test_split"):
            losses = self.probe(w, ids, t)
            self.loss, self.loss_min = filter_losses(
                self.loss, self.loss_min, self.started, ids, losses, self.params.beta
            )
            self.started = True
        alpha = self.facts.alpha.cpu().double()
        pi, lam = self.estimate.pi(self.counts), self.estimate.lam(self.counts)
        gap = self.loss - self.floor() if self.started else torch.zeros_like(self.loss)
        self.q = allocation(alpha, pi, lam, gap, self.params.tau, self.params.accept_ties)
        return Plan(ids[self.q[ids] > 0])

    def probe(self, w: Tensor, ids: Tensor, t: int) -> Tensor:
        if self.params.loss_probe == "batch":
            return self.facts.probe_loss(w, ids, t)
        return self.facts.test_loss(w, ids)

    def floor(self) -> Tensor:
        """F̂*: the running minimum, or the local optima (solved once)."""
        if self.params.optimum == "running_min":
            return self.loss_min
        if self.params.optimum == "zero":
            return torch.zeros_like(self.loss)
        if self.optima is None:
            self.optima = self.facts.local_optima().double().cpu()
        return self.optima

    def summed(self, t: int, plan: Plan) -> Summed:
        a = self.q[plan.selected].to(self.facts.alpha)
        return Summed(a, metrics={EXCLUDED.name: float((self.q == 0).sum())})

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        return self.summed(t, plan).step(self.facts.n, plan.selected.to(self.facts.device), deltas)
