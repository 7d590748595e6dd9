"""FedProx: FedAvg whose local objective adds the proximal term (μ/2)‖θ − w‖²."""

from __future__ import annotations

from worker.engine.algorithms.fedavg import FedAvg


class FedProx(FedAvg):
    def prox_mu(self) -> float:
        return self.ctx.config.algorithm.fedprox.mu
