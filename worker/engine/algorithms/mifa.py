"""MIFA: every available client (or a uniform sample of K) trains; the server applies
the α-weighted average of the latest update of every client.

`init="wait_all"` leaves the model untouched until every client has reported once.
"""

from __future__ import annotations

from typing import Literal

import torch
from pydantic import Field
from torch import Tensor

from worker.engine.algorithms.base import Plan, Step
from worker.engine.algorithms.fedlaavg import FedLaAvg
from worker.engine.algorithms.selection import uniform_sample
from worker.engine.masks import Available
from worker.engine.params import Params
from worker.engine.registry import algorithm


class MifaParams(Params):
    init: Literal["zero", "wait_all"] = Field(
        "zero", description="zero memories, or skip rounds until every client reported."
    )


@algorithm("mifa", params=MifaParams, label="MIFA")
class Mifa(FedLaAvg):
    params: MifaParams

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        return Plan(uniform_sample(available, self.facts.k, gen))

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        self.remember(t, plan.selected, deltas, lr)
        if self.params.init == "wait_all" and len(self.memory.ids) < self.facts.n:
            return Step(None, self.zeros(self.facts.n), self.memory.filled_share())
        return self.average(lr)
