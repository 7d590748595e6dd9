"""AdaFed (full participation, as run in CA-Fed): Unbiased's weights α_i/π̂_i over the
available clients, normalised to sum 1."""

from __future__ import annotations

from torch import Tensor

from worker.engine.algorithms.unbiased import Unbiased
from worker.engine.config import EstimateConfig


class AdaFed(Unbiased):
    def estimate_config(self) -> EstimateConfig:
        return self.ctx.config.algorithm.adafed

    def client_weights(self, ids: Tensor) -> Tensor:
        a = super().client_weights(ids)
        return a / a.sum()
