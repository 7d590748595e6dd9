"""Device profiles drawn from named distributions: each client's compute time per
sample and its downlink and uplink bandwidths, seeded from the run's seed.

- `lognormal`: value = median·exp(spread·z), z ~ N(0, 1); a client's downlink and
  uplink share one z (a good network is good both ways), its compute speed has its own.
- `fixed`: every client has the medians.
- `classes`: device classes with shares; each client belongs to one, drawn with the
  shares as probabilities, and has its class's three values.
"""

from __future__ import annotations

from typing import Literal

import torch
from pydantic import Field
from torch import Tensor

from worker.engine.params import Params, RunShape, applies
from worker.engine.registry import system
from worker.engine.rng import torch_gen
from worker.engine.system.base import SystemContext, SystemModel

FIELD = "system.profiles"
MBPS = 1e6 / 8  # bytes per second in a Mbit/s
LOGNORMAL = applies(f"{FIELD}.distribution", "lognormal")
MEDIANS = applies(f"{FIELD}.distribution", "lognormal", "fixed")
CLASSES = applies(f"{FIELD}.distribution", "classes")


class ProfilesParams(Params):
    distribution: Literal["lognormal", "fixed", "classes"] = Field(
        "lognormal", description="How clients' devices differ."
    )
    compute_s_per_sample: float = Field(
        0.005,
        gt=0,
        json_schema_extra=MEDIANS,
        description="Median seconds one training sample takes (forward and backward).",
    )
    compute_spread: float = Field(
        0.6, ge=0, json_schema_extra=LOGNORMAL, description="σ of the log of compute time."
    )
    down_mbps: float = Field(
        20.0, gt=0, json_schema_extra=MEDIANS, description="Median downlink, Mbit/s."
    )
    up_mbps: float = Field(
        5.0, gt=0, json_schema_extra=MEDIANS, description="Median uplink, Mbit/s."
    )
    link_spread: float = Field(
        0.6, ge=0, json_schema_extra=LOGNORMAL, description="σ of the log of bandwidth."
    )
    class_shares: list[float] = Field(
        [0.5, 0.3, 0.2], json_schema_extra=CLASSES, description="Share of clients in each class."
    )
    class_compute_s_per_sample: list[float] = Field(
        [0.002, 0.005, 0.02],
        json_schema_extra=CLASSES,
        description="Seconds per training sample of each class.",
    )
    class_down_mbps: list[float] = Field(
        [50.0, 20.0, 5.0], json_schema_extra=CLASSES, description="Downlink of each class, Mbit/s."
    )
    class_up_mbps: list[float] = Field(
        [10.0, 5.0, 1.0], json_schema_extra=CLASSES, description="Uplink of each class, Mbit/s."
    )

    def check_run(self, run: RunShape) -> None:
        if self.distribution != "classes":
            return
        lists = {
            "class_shares": self.class_shares,
            "class_compute_s_per_sample": self.class_compute_s_per_sample,
            "class_down_mbps": self.class_down_mbps,
            "class_up_mbps": self.class_up_mbps,
        }
        for name, values in lists.items():
            if not values or any(v <= 0 for v in values):
                raise ValueError(f"{FIELD}.{name}: give one positive value per device class")
        n = len(self.class_shares)
        for name, values in lists.items():
            if len(values) != n:
                raise ValueError(
                    f"{FIELD}.{name}: {len(values)} values for {n} classes (class_shares)"
                )


@system("profiles", params=ProfilesParams, label="device profiles")
class Profiles(SystemModel):
    def __init__(self, params: ProfilesParams, facts: SystemContext) -> None:
        p, n = params, facts.n
        gen = torch_gen(facts.seed, "system")
        if p.distribution == "classes":
            shares = torch.tensor(p.class_shares, dtype=torch.float64)
            group = torch.multinomial(shares, n, replacement=True, generator=gen)
            self.s_per_sample = _values(p.class_compute_s_per_sample, group)
            self.down_bps = _values(p.class_down_mbps, group) * MBPS
            self.up_bps = _values(p.class_up_mbps, group) * MBPS
            return
        spread = p.distribution == "lognormal"
        z = torch.randn(2, n, generator=gen, dtype=torch.float64) if spread else torch.zeros(2, n)
        compute = torch.exp(p.compute_spread * z[0].double())
        link = torch.exp(p.link_spread * z[1].double())
        self.s_per_sample = p.compute_s_per_sample * compute
        self.down_bps = p.down_mbps * MBPS * link
        self.up_bps = p.up_mbps * MBPS * link


def _values(per_class: list[float], group: Tensor) -> Tensor:
    return torch.tensor(per_class, dtype=torch.float64)[group]
