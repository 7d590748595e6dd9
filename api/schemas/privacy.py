"""A run's per-client privacy: the distribution of ε over its clients
(`worker.engine.privacy.client_epsilons`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class EpsilonHistogramPublic(BaseModel):
    """Clients by ε, in bins of equal width."""

    edges: list[float] = Field(
        description="Bin edges, one more than the bins; [ε, ε] where every client has the "
        "same ε (one bin)."
    )
    counts: list[int] = Field(description="Clients in [edges[i], edges[i+1]), the last closed.")
    exact: bool = Field(
        description="Every client's ε computed; false: ε computed at order statistics of the "
        "rates (counts) and interpolated between them (docs/concepts/privacy.md)."
    )


class PrivacyClientsPublic(BaseModel):
    """Per-client ε after the latest recorded round, and the run's three figures to mark
    on it. An external run logs its own figures: it has no histogram (`no_histogram`
    says why), and only the figures it logged."""

    round: int = Field(description="The latest recorded round.")
    rounds: int = Field(description="Rounds recorded, the accountant's rounds so far.")
    n_clients: int
    mechanism: Literal["central", "local"] | None = Field(
        description="privacy.kind (None: an external run)."
    )
    delta: float | None = Field(description="δ of every ε (None: an external run).")
    noise_multiplier: float | None = Field(description="σ (None: an external run).")
    amplified: bool | None = Field(
        description="Each client's ε amplified by sampling at its own availability π_k "
        "(None: an external run)."
    )
    amplification: str = Field(description="Why it is, or is not, amplified.")
    epsilon_assumed: float | None = Field(description="As recorded: Poisson at K/N every round.")
    epsilon_client_max: float | None = Field(description="The worst client's ε.")
    epsilon_client_median: float | None = Field(description="The median client's ε.")
    histogram: EpsilonHistogramPublic | None
    no_histogram: str | None = Field(description="Why there is no histogram (None: there is).")
