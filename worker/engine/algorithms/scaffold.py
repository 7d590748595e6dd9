"""SCAFFOLD with option II control variates (Karimireddy et al.).

Client i trains with the gradient correction c − c_i, then
c_i⁺ = c_i − c − Δ_i/(S·η_l) for its S local steps (those it completed, where a system
model cut its time short); the server applies
w ← w + η_s Σ_S α̃_i Δ_i and c ← c + Σ_S α_i (c_i⁺ − c_i) (= (1/N) Σ_S Δc_i for uniform α).
With zero control variates a round is exactly a FedAvg round.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from worker.engine.algorithms.base import (
    Algorithm,
    AlgorithmContext,
    Footprint,
    Plan,
    Step,
    renormalised,
    weighted_step,
)
from worker.engine.algorithms.selection import uniform_sample
from worker.engine.masks import Available
from worker.engine.params import Params, RunShape
from worker.engine.privacy.guarantee import CONTROL_VARIATES, Guarantee
from worker.engine.registry import algorithm


class ScaffoldParams(Params):
    """No parameters; the run must count local work in steps."""

    def check_run(self, run: RunShape) -> None:
        if run.local_unit != "steps":
            raise ValueError(
                "client.unit: scaffold divides by the number of local steps; use 'steps'"
            )


@algorithm("scaffold", params=ScaffoldParams, label="SCAFFOLD")
class Scaffold(Algorithm):
    privacy = Guarantee(CONTROL_VARIATES, CONTROL_VARIATES)
    state = ("c", "controls")
    footprint = Footprint(client_rows=1, vectors=1, round_rows=3)  # corrections, c_i⁺ − c_i

    def __init__(self, params: Any, facts: AlgorithmContext) -> None:
        super().__init__(params, facts)
        self.c = self.zeros(facts.dim)
        self.controls = self.zeros(facts.n, facts.dim)

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        selected = uniform_sample(available, self.facts.k, gen)
        correction = self.c - self.controls[selected.to(self.facts.device)]
        return Plan(selected, correction=correction)

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        ids = plan.selected.to(self.facts.device)
        if len(ids):
            # c_i⁺ − c_i, over the steps each client completed
            steps = self.facts.local_steps if plan.steps is None else plan.steps[:, None]
            change = -self.c - deltas / (steps * lr)
            self.controls[ids] += change
            self.c = self.c + self.facts.alpha[ids] @ change
        return weighted_step(self.facts.n, ids, renormalised(self.facts.alpha, ids), deltas)
