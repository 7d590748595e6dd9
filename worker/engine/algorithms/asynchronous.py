"""The asynchronous algorithms' contract (FedBuff, FedAsync): no rounds of selected
clients, but up to `concurrency` clients training at once, each on the model version
current when it started, and a server update every `arrivals` updates to arrive.

The loop runs them in async mode (`Simulation.async_round` in `loop.py`; the clients in
flight are `system/flights.py`'s): a record's "round" is one server update u, and the
model after it is version u + 1. An update that started from version v arrives with
staleness s = u − v (in versions) and enters with a weight f(s) of the staleness
function:

- `constant`: f(s) = 1;
- `polynomial`: f(s) = (1 + s)^−a (FedAsync's and FedBuff's default, a = 0.5);
- `hinge`: f(s) = 1 for s ≤ b, else 1 / (a·(s − b) + 1) (FedAsync).

`start` says, each time slots are free, which of the idle available clients start in
them: a uniform sample.
"""

from __future__ import annotations

from typing import Literal

import torch
from pydantic import Field
from torch import Tensor

from worker.engine.algorithms.base import Algorithm, Footprint, Plan, Step
from worker.engine.algorithms.selection import uniform_sample
from worker.engine.masks import Available
from worker.engine.params import Params, RunShape
from worker.engine.privacy.guarantee import STALENESS, Guarantee


class AsyncParams(Params):
    concurrency: int = Field(10, ge=1, le=100_000, description="Clients training at once, at most.")
    staleness: Literal["constant", "polynomial", "hinge"] = Field(
        "polynomial",
        description="Weight f(s) of an update s versions stale: constant 1, polynomial "
        "(1 + s)^−a, or hinge: 1 up to s = b, then 1 / (a·(s − b) + 1).",
    )
    staleness_a: float = Field(0.5, ge=0, description="Exponent a (polynomial), slope a (hinge).")
    staleness_b: int = Field(4, ge=0, description="hinge: staleness b up to which f = 1.")
    ring: int = Field(
        32,
        ge=1,
        le=100_000,
        description="Recent model versions kept for clients to start from (ring × d floats "
        "of memory): an update whose starting version has left the ring is dropped.",
    )

    @property
    def arrivals(self) -> int:
        """Updates that arrive between two server updates, trained at once."""
        return 1

    @property
    def arrivals_field(self) -> str:
        """The field that sets `arrivals` (the algorithm's name where none does)."""
        return "algorithm.name"

    def check_run(self, run: RunShape) -> None:
        if run.system == "none":
            raise ValueError(
                f"system.kind: {run.algorithm} runs asynchronously on the clock; "
                "choose a system model"
            )
        if self.concurrency > run.n_clients:
            raise ValueError(
                f"algorithm.{run.algorithm}.concurrency: {self.concurrency} exceeds "
                f"data.n_clients = {run.n_clients}"
            )


def staleness_weight(params: AsyncParams, s: Tensor) -> Tensor:
    """f(s) for the staleness `s` (versions, any shape), as float32."""
    s = s.float()
    if params.staleness == "constant":
        return torch.ones_like(s)
    if params.staleness == "polynomial":
        return (1 + s).pow(-params.staleness_a)
    over = (s - params.staleness_b).clamp(min=0)
    return 1 / (params.staleness_a * over + 1)


class AsyncAlgorithm(Algorithm):
    """An algorithm the loop runs in async mode. `AlgorithmContext.k` is the concurrency. A plan
    given to `aggregate` holds in `staleness` the versions each update is stale by and
    in `origin` the (K, d) models they started from."""

    privacy = Guarantee(central=STALENESS, local=None)

    asynchronous = True
    footprint = Footprint(round_rows=2)  # the starting models gathered from the ring
    params: AsyncParams

    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        """The clients that start with every slot free (`start`)."""
        return Plan(self.start(available, self.facts.k, gen))

    def start(self, idle: Available, free: int, gen: torch.Generator) -> Tensor:
        """Up to `free` of the idle available clients, drawn uniformly."""
        return uniform_sample(idle, free, gen)

    def weights(self, plan: Plan) -> Tensor:
        """f(s) of each of the plan's updates."""
        assert plan.staleness is not None
        return staleness_weight(self.params, plan.staleness).to(self.facts.device)

    def step(self, plan: Plan, a: Tensor, direction: Tensor) -> Step:
        """The update `direction`, the weights a of the plan's updates summed by client
        (a client may arrive twice); no update when none entered."""
        n = self.facts.n
        weights = torch.zeros(n, device=self.facts.device)
        if len(plan.selected) == 0:
            return Step(None, weights)
        weights.index_add_(0, plan.selected.to(self.facts.device), a)
        return Step(direction, weights)
