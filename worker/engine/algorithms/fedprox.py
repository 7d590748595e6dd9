"""FedProx: FedAvg whose local objective adds the proximal term (μ/2)‖θ − w‖²."""

from __future__ import annotations

import torch
from pydantic import Field
from torch import Tensor

from worker.engine.algorithms.base import Footprint, Plan
from worker.engine.algorithms.fedavg import FedAvg, FedAvgParams
from worker.engine.masks import Available
from worker.engine.registry import algorithm


class FedProxParams(FedAvgParams):
    mu: float = Field(0.01, ge=0, description="Proximal term weight μ.")


@algorithm("fedprox", params=FedProxParams, label="FedProx")
class FedProx(FedAvg):
    footprint = Footprint(round_rows=2, proximal=True)
    params: FedProxParams

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        return Plan(self.trainees(available, gen), prox_mu=self.params.mu)
