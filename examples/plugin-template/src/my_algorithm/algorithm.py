"""My algorithm: a starting point. As written, FedAvg over every available client with
a tunable share of the update applied. `fedwatch.plugins` documents the round contract.
"""

from __future__ import annotations

import torch
from pydantic import Field
from torch import Tensor

import fedwatch.plugins as fw

# A per-round value of your own: recorded, stored, drawn on the run page, compared.
TRAINED = fw.MetricSpec("my_algorithm_trained", "clients trained", panel="algorithm")


class MyParams(fw.Params):
    """Each field becomes `algorithm.my_algorithm.<field>` in the form, `--set` and
    sweeps; give every field a default and a description."""

    share: float = Field(1.0, gt=0, le=1, description="Share of the averaged update applied.")


@fw.algorithm("my_algorithm", params=MyParams, label="My algorithm")
class MyAlgorithm(fw.Algorithm):
    state = ()  # attributes a checkpoint must hold, so that a resumed run is identical
    metric_specs = (TRAINED,)
    footprint = fw.Footprint(trainees="available")  # what the run's estimate counts
    params: MyParams

    def select(self, t: int, w: Tensor, available: fw.Available, gen: torch.Generator) -> fw.Plan:
        """Who trains in round t (draw random choices from `gen` only)."""
        return fw.Plan(available.ids)

    def aggregate(self, t: int, w: Tensor, plan: fw.Plan, deltas: Tensor, lr: float) -> fw.Step:
        """The update from the trained clients' deltas: the loop applies w += η_s·direction."""
        ids = plan.selected.to(self.facts.device)
        weights = self.params.share * fw.renormalised(self.facts.alpha, ids)
        return fw.weighted_step(self.facts.n, ids, weights, deltas, {TRAINED.name: float(len(ids))})
