"""Unbiased (CA-Fed's baseline): every available client trains and enters with weight
α_i/π̂_i, unnormalised, so the update is unbiased for the target objective."""

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
from worker.engine.algorithms.estimators import AvailabilityEstimate, empty_counts, observe
from worker.engine.masks import Available
from worker.engine.params import Params
from worker.engine.privacy.guarantee import WEIGHTED, Guarantee
from worker.engine.registry import algorithm


class EstimateParams(Params):
    estimator: Literal["bayesian", "oracle"] = Field(
        "bayesian", description="π read from the availability model, or Beta-prior counts."
    )
    prior: float = Field(1.0, gt=0, description="bayesian: Beta prior pseudo-count for π̂.")


@algorithm("unbiased", params=EstimateParams, label="Unbiased")
class Unbiased(Algorithm):
    privacy = Guarantee(central=WEIGHTED, local=None)
    state = ("counts",)
    footprint = Footprint(trainees="available")
    params: EstimateParams

    def __init__(self, params: EstimateParams, facts: AlgorithmContext) -> None:
        super().__init__(params, facts)
        self.estimate = AvailabilityEstimate(params.estimator, params.prior, facts.pi, facts.lam)
        self.counts = empty_counts(facts.n)

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        self.counts = observe(self.counts, available.mask)
        return Plan(available.ids)

    def client_weights(self, ids: Tensor) -> Tensor:
        """α_i/π̂_i of the clients `ids`."""
        pi = self.estimate.pi(self.counts).to(self.facts.alpha)
        return (self.facts.alpha / pi)[ids]

    def summed(self, t: int, plan: Plan) -> Summed:
        return Summed(self.client_weights(plan.selected.to(self.facts.device)))

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        return self.summed(t, plan).step(self.facts.n, plan.selected.to(self.facts.device), deltas)
