"""What each algorithm does to the guarantee of each privacy mechanism: an algorithm
states it in its class (`Algorithm.privacy`), and the run config refuses a combination
that breaks it, with the reason (`checks.py`).

Central DP (the server clips each update to C and adds N(0, (σC)²) to their sum) holds
where the round's model update is a function of that noised sum alone: the mean of this
round's clipped updates with uniform weights, then anything the server does with it
(FedAvg, FedProx, FedAdam). Local DP (each client clips and noises its own update) holds
where everything a client sends is its noised update: whatever the server then does,
stored updates reused included, is post-processing.
"""

from __future__ import annotations

from dataclasses import dataclass

UNDECLARED = (
    "states no privacy guarantee (its class's `privacy`): an algorithm must say how its "
    "update uses the clients' updates before a mechanism can vouch for it"
)
MEMORY = (
    "keeps each client's clipped update and averages it again in later rounds, so the "
    "server releases single updates whose noise is a 1/K share of σ·clip_norm, not only "
    "their noised sum (use local DP, under which reusing a noised update is "
    "post-processing)"
)
WEIGHTED = (
    "weights each update by α_k/π_k, so one client's share of the sum exceeds 1/K and "
    "σ·clip_norm no longer covers it (use local DP)"
)
NORMALISED = (
    "rescales each update by its local work (τ_eff/‖a_i‖₁), so one client's share of the "
    "sum is not bounded by clip_norm (use local DP)"
)
STALENESS = (
    "applies each update as it arrives, weighted by its staleness: there is no round's "
    "sum for the noise to cover (use local DP)"
)
CONTROL_VARIATES = (
    "has its clients send control variates computed from their data, which no mechanism "
    "clips or noises"
)
LOSS_REPORTS = (
    "has its available clients report their loss on a batch of their data, which no "
    "mechanism clips or noises"
)
CENTRAL_TRAINING = "trains one model on the union of the data: there are no client updates to clip"


@dataclass(frozen=True)
class Guarantee:
    """Per mechanism, None where its guarantee holds for the algorithm, else why not."""

    central: str | None = UNDECLARED
    local: str | None = UNDECLARED

    def problem(self, kind: str) -> str | None:
        """Why mechanism `kind` (`privacy.kind`) does not hold (None: it does)."""
        return None if kind == "none" else getattr(self, kind)


HOLDS = Guarantee(None, None)
