"""FedBuff (Nguyen et al., "Federated Learning with Buffered Asynchronous
Aggregation", AISTATS 2022): the server buffers the updates as they arrive and, every
`buffer` arrivals, applies their mean, each weighted by the staleness function:
w ← w + η_s (1/K') Σ_i f(s_i) Δ_i over the K' that entered (those still in the ring)."""

from __future__ import annotations

from pydantic import Field
from torch import Tensor

from worker.engine.algorithms.asynchronous import AsyncAlgorithm, AsyncParams
from worker.engine.algorithms.base import Plan, Step
from worker.engine.registry import algorithm


class FedBuffParams(AsyncParams):
    buffer: int = Field(10, ge=1, le=100_000, description="K: arrivals per server update.")

    @property
    def arrivals(self) -> int:
        return self.buffer

    @property
    def arrivals_field(self) -> str:
        return "algorithm.fedbuff.buffer"


@algorithm("fedbuff", params=FedBuffParams, label="FedBuff (async)")
class FedBuff(AsyncAlgorithm):
    params: FedBuffParams

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        a = self.weights(plan) / max(1, len(deltas))
        return self.step(plan, a, a @ deltas)
