"""FedAvg: a uniform sample of the available clients, weights α renormalised over it.

`wait_for_all`: the classic variant that samples K of all N clients and waits (no model
update) until every sampled client has been available and trained once.

`rescale_partial` (Ruan et al., "Towards Flexible Device Participation in Federated
Learning", AISTATS 2021): a client that completed s of its C planned local steps (a
partial update, `client.partial_work = keep`) enters with its update times C/s.
"""

from __future__ import annotations

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
    renormalised,
    weighted_step,
)
from worker.engine.algorithms.selection import uniform_sample
from worker.engine.masks import Available
from worker.engine.params import Params
from worker.engine.privacy.guarantee import HOLDS
from worker.engine.registry import algorithm


class FedAvgParams(Params):
    wait_for_all: bool = Field(
        False, description="Wait until the K sampled clients have all been available."
    )
    rescale_partial: bool = Field(
        False,
        description="Scale a partial update of s of its C planned local steps by C/s "
        "(Ruan et al. 2021).",
    )


@algorithm("fedavg", params=FedAvgParams, label="FedAvg")
class FedAvg(Algorithm):
    privacy = HOLDS
    state = ("pending", "reported", "buffer")
    footprint = Footprint(round_rows=2)  # wait_for_all: the buffer and its rescaled copy
    params: FedAvgParams

    def __init__(self, params: FedAvgParams, facts: AlgorithmContext) -> None:
        super().__init__(params, facts)
        self.pending = torch.zeros(0, dtype=torch.long)
        self.reported = torch.zeros(0, dtype=torch.bool)
        self.buffer = self.zeros(0, facts.dim)

    @classmethod
    def privacy_problem(cls, name: str, params: FedAvgParams, kind: str) -> str | None:
        if kind == "central" and params.rescale_partial:
            return (
                f"algorithm.{name}.rescale_partial: scales a clipped partial update by C/s "
                "> 1, beyond clip_norm, which σ·clip_norm no longer covers (leave it off, or "
                "use local DP)"
            )
        return super().privacy_problem(name, params, kind)

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        return Plan(self.trainees(available, gen))

    def trainees(self, available: Available, gen: torch.Generator) -> Tensor:
        if not self.params.wait_for_all:
            return uniform_sample(available, self.facts.k, gen)
        if len(self.pending) == 0:
            n = self.facts.n
            everyone = Available(torch.ones(n, dtype=torch.bool), torch.arange(n))
            self.pending = uniform_sample(everyone, self.facts.k, gen)
            self.reported = torch.zeros(len(self.pending), dtype=torch.bool)
            self.buffer = self.zeros(len(self.pending), self.facts.dim)
        todo = ~self.reported & available.mask.cpu()[self.pending]
        return self.pending[todo]

    @classmethod
    def trains_into_sum(cls, params: FedAvgParams | None) -> bool:
        """Unless it waits for all (its step then reads the buffer of earlier rounds'
        deltas); a plug-in that declares this class without its params never waits."""
        return params is None or not params.wait_for_all

    def summed(self, t: int, plan: Plan) -> Summed:
        ids = plan.selected.to(self.facts.device)
        return Summed(renormalised(self.facts.alpha, ids), self._partial_scale(plan))

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        if self.trains_into_sum(self.params):
            summed = self.summed(t, plan)
            return summed.step(self.facts.n, plan.selected.to(self.facts.device), deltas)
        if (scale := self._partial_scale(plan)) is not None:
            deltas = deltas * scale[:, None]
        slots = torch.searchsorted(self.pending, plan.selected)
        self.buffer[slots] = deltas / lr
        self.reported[slots] = True
        if not bool(self.reported.all()):
            return Step(None, self.zeros(self.facts.n))
        ids, stored = self.pending, self.buffer * lr
        self.pending = torch.zeros(0, dtype=torch.long)
        return self._average(ids, stored)

    def _partial_scale(self, plan: Plan) -> Tensor | None:
        """C/s of each client that completed s of its C planned steps, with
        `rescale_partial` (None: every update enters as it is)."""
        if self.params.rescale_partial and plan.steps is not None and plan.planned is not None:
            return plan.planned / plan.steps
        return None

    def _average(self, ids: Tensor, deltas: Tensor) -> Step:
        ids = ids.to(self.facts.device)
        return weighted_step(self.facts.n, ids, renormalised(self.facts.alpha, ids), deltas)
