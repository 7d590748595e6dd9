"""FedAU (Wang & Ji, "A Lightweight Method for Tackling Unknown Participation Statistics
in Federated Averaging", ICLR 2024).

Every available client trains. The server keeps, per client, the intervals between its
participations, an interval cut off at `cutoff` rounds without one; a client's update
enters with the mean of its intervals so far, ω_i, an online estimate of 1/p_i (1 before
its first interval): w ← w + η_s Σ_{i ∈ S_t} α_i ω_i Δ_i, which with uniform α is the
paper's (1/N) Σ ω_i Δ_i. Only three numbers per client, where memory methods keep an
update per client.
"""

from __future__ import annotations

import torch
from pydantic import Field
from torch import Tensor

import fedwatch.plugins as fw

WEIGHT_MEAN = fw.MetricSpec(
    "fedau_weight_mean", "FedAU weight ω, mean over the trained clients", panel="algorithm"
)


class FedAuParams(fw.Params):
    cutoff: int = Field(
        50, ge=1, description="K: an interval ends after K rounds without the client."
    )


@fw.algorithm("fedau", params=FedAuParams, label="FedAU")
class FedAu(fw.Algorithm):
    state = ("absent", "interval_sum", "intervals")
    metric_specs = (WEIGHT_MEAN,)
    footprint = fw.Footprint(trainees="available")
    params: FedAuParams

    def __init__(self, params: FedAuParams, facts: fw.AlgorithmContext) -> None:
        super().__init__(params, facts)
        self.absent = torch.zeros(facts.n, dtype=torch.long)  # rounds since the last interval
        self.interval_sum = torch.zeros(facts.n, dtype=torch.float64)
        self.intervals = torch.zeros(facts.n, dtype=torch.long)

    def select(self, t: int, w: Tensor, available: fw.Available, gen: torch.Generator) -> fw.Plan:
        return fw.Plan(available.ids)

    def aggregate(self, t: int, w: Tensor, plan: fw.Plan, deltas: Tensor, lr: float) -> fw.Step:
        ids = plan.selected
        seen = self.intervals[ids] > 0
        omega = torch.where(seen, self.interval_sum[ids] / self.intervals[ids].clamp(min=1), 1.0)
        self._observe(ids)
        metrics = {WEIGHT_MEAN.name: float(omega.mean())} if len(ids) else {}
        a = (self.facts.alpha.cpu().double()[ids] * omega).to(self.facts.alpha)
        return fw.weighted_step(self.facts.n, ids.to(self.facts.device), a, deltas, metrics)

    def _observe(self, trained: Tensor) -> None:
        """This round's participation closes an interval (absent + 1 rounds long); K
        rounds of absence close one of K rounds."""
        took_part = torch.zeros(self.facts.n, dtype=torch.bool)
        took_part[trained] = True
        self.absent[~took_part] += 1
        ends = took_part | (self.absent >= self.params.cutoff)
        length = torch.where(took_part, self.absent + 1, self.absent)
        self.interval_sum[ends] += length[ends].double()
        self.intervals[ends] += 1
        self.absent[ends] = 0
