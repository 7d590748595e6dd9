"""FedAsync (Xie et al., "Asynchronous Federated Optimization", 2019): every arrival
is mixed into the model, w ← (1 − α_s) w + α_s θ with α_s = α·f(s) and θ = w_v + Δ
the client's model (w_v: the version it started from); as a direction,
α_s (w_v + Δ − w), times η_s."""

from __future__ import annotations

from pydantic import Field
from torch import Tensor

from worker.engine.algorithms.asynchronous import AsyncAlgorithm, AsyncParams
from worker.engine.algorithms.base import Plan, Step
from worker.engine.registry import algorithm


class FedAsyncParams(AsyncParams):
    mixing: float = Field(0.6, gt=0, le=1, description="α: the mixing weight of a fresh update.")


@algorithm("fedasync", params=FedAsyncParams, label="FedAsync (async)")
class FedAsync(AsyncAlgorithm):
    params: FedAsyncParams

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        assert plan.origin is not None
        a = self.params.mixing * self.weights(plan)
        return self.step(plan, a, a @ (plan.origin + deltas - w))
