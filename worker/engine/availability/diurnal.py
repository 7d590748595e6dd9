"""FedLaAvg's diurnal availability: two client groups take turns, E₀ rounds then E₁."""

from __future__ import annotations

import math
from typing import Literal

import torch
from pydantic import Field
from torch import Tensor

from worker.engine.availability.base import Availability, AvailabilityContext
from worker.engine.errors import ConfigError
from worker.engine.params import Params, RunShape
from worker.engine.registry import availability


class DiurnalParams(Params):
    strategy: Literal["number", "ratio"] = Field(
        "number", description="number: groups by label (E₀=E₁=E); ratio: E₁=⌊α·E₀⌋."
    )
    period: int = Field(100, ge=1, description="E (number) or E₀ (ratio): rounds per phase.")
    classes_in_group0: int = Field(
        1, ge=1, description="number: clients whose label is among the first D are group 0."
    )
    ratio: float = Field(1.0, gt=0, description="ratio: α with E₁ = ⌊α·E₀⌋.")

    def check_run(self, run: RunShape) -> None:
        if self.strategy == "number" and self.classes_in_group0 >= max(run.data.n_classes, 2):
            raise ValueError(
                "availability.diurnal.classes_in_group0: must leave at least one class for group 1"
            )


@availability("diurnal", params=DiurnalParams, label="diurnal")
class Diurnal(Availability):
    """Group 0 is available in rounds t with t mod (E₀+E₁) < E₀, group 1 in the rest."""

    def __init__(self, group0: Tensor, e0: int, e1: int) -> None:
        if e0 < 1 or e1 < 1:
            raise ConfigError("availability.diurnal: both phases need at least one round")
        if bool(group0.all()) or not bool(group0.any()):
            raise ConfigError("availability.diurnal: both groups need at least one client")
        self.group0, self.e0, self.e1 = group0, e0, e1
        self.period = e0 + e1
        share0 = e0 / (e0 + e1)
        self.pi = torch.where(group0, share0, 1 - share0).double()

    @classmethod
    def from_params(cls, params: DiurnalParams, facts: AvailabilityContext) -> Availability:
        return diurnal_from_config(params, facts.client_class, facts.n_classes)

    def mask(self, t: int) -> Tensor:
        day = t % (self.e0 + self.e1) < self.e0
        return self.group0.clone() if day else ~self.group0


def diurnal_from_config(cfg: DiurnalParams, client_class: Tensor, n_classes: int) -> Diurnal:
    """number: group 0 = clients whose label is among the first D; E₀ = E₁ = E.

    ratio: group 0 = clients whose label is in the first half of the classes;
    E₁ = ⌊α·E₀⌋.
    """
    if cfg.strategy == "number":
        return Diurnal(client_class < cfg.classes_in_group0, cfg.period, cfg.period)
    e1 = math.floor(cfg.ratio * cfg.period + 1e-9)
    return Diurnal(client_class < max(n_classes // 2, 1), cfg.period, e1)
