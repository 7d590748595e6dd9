"""FedAvg with importance weights (FedAR's baseline): every available client trains and
enters with weight α_i/π_i, π known to the server by default (`estimator: oracle`)."""

from __future__ import annotations

from worker.engine.algorithms.unbiased import Unbiased
from worker.engine.config import EstimateConfig


class FedAvgIs(Unbiased):
    def estimate_config(self) -> EstimateConfig:
        return self.ctx.config.algorithm.fedavg_is
