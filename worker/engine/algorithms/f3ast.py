"""F3AST: among the available clients the K with the largest α_k²/π̂_k² train, with
weights α_k/π̂_k. π̂ (β = 1/rounds unless set):

- `moving_average`: π̂_t = (1 − β) π̂_{t−1} + β·1[k available at t], from π̂ = ½;
- `oracle_smoothed`: π̂_t = (1 − β) π_k + β·1[k available at t], from the true π_k
  every round (the CA-Fed authors' code).
"""

from __future__ import annotations

from typing import Literal

import torch
from pydantic import Field
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, AlgorithmContext, Plan, Step, Summed
from worker.engine.masks import Available
from worker.engine.params import Params
from worker.engine.privacy.guarantee import WEIGHTED, Guarantee
from worker.engine.registry import algorithm


class F3astParams(Params):
    beta: float | None = Field(
        None, gt=0, le=1, description="Averaging weight of π̂ (default 1/rounds)."
    )
    pi_estimate: Literal["moving_average", "oracle_smoothed"] = Field(
        "moving_average",
        description="π̂: a moving average of availability from ½, or the true π smoothed "
        "with this round's availability (the CA-Fed authors' code).",
    )


@algorithm("f3ast", params=F3astParams, label="F3AST")
class F3ast(Algorithm):
    privacy = Guarantee(central=WEIGHTED, local=None)
    state = ("pi",)
    params: F3astParams

    def __init__(self, params: F3astParams, facts: AlgorithmContext) -> None:
        super().__init__(params, facts)
        self.beta = params.beta if params.beta is not None else 1.0 / facts.rounds
        self.pi = torch.full((facts.n,), 0.5, dtype=torch.float64)  # uninformed start

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        start = self.pi if self.params.pi_estimate == "moving_average" else self.facts.pi
        self.pi = (1 - self.beta) * start.cpu().double() + self.beta * available.mask.cpu().double()
        ids = available.ids
        score = (self.facts.alpha.cpu().double() / self.pi)[ids] ** 2
        top = torch.argsort(score, descending=True, stable=True)[: self.facts.k]
        return Plan(ids[top].sort().values)

    def summed(self, t: int, plan: Plan) -> Summed:
        ids = plan.selected.to(self.facts.device)
        return Summed((self.facts.alpha / self.pi.to(self.facts.alpha))[ids])

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        return self.summed(t, plan).step(self.facts.n, plan.selected.to(self.facts.device), deltas)
