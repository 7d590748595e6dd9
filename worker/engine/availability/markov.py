"""Correlated availability: each client is a two-state Markov chain (CA-Fed)."""

from __future__ import annotations

from typing import Any, Literal

import torch
from pydantic import Field
from torch import Tensor

from worker.engine.availability.base import (
    Availability,
    AvailabilityContext,
    check_dataset_population,
    dataset_population,
)
from worker.engine.params import Params, RunShape
from worker.engine.registry import availability
from worker.engine.rng import torch_gen

FIELD = "availability.markov.population"


class MarkovParams(Params):
    population: Literal["halves", "dataset"] = Field(
        "halves",
        description="halves: π and λ from the fields below (CA-Fed's two halves); "
        "dataset: the dataset's own population (synthetic_clustered's population_g/nu).",
    )
    g: float = Field(0.4, ge=0, lt=0.5, description="π = ½ ± g for more/less available.")
    nu: float = Field(0.9, ge=0, lt=1, description="λ of the correlated clients.")
    correlated_share: float = Field(
        0.5, ge=0, le=1, description="Share of each group that is correlated (λ = ν)."
    )
    weak_lambda: float = Field(0.0, ge=0, lt=1, description="λ of the weakly correlated.")

    def check_run(self, run: RunShape) -> None:
        if self.population == "dataset":
            check_dataset_population(FIELD, run)


@availability("markov", params=MarkovParams, label="Markov")
class Markov(Availability):
    """Stationary availability π_k, correlation λ_k:

    P(on→on) = λ + (1−λ)π, P(off→on) = (1−λ)π; the chain starts ~ Bernoulli(π).
    """

    def __init__(self, pi: Tensor, lam: Tensor, seed: int) -> None:
        self.pi, self.seed = pi.double(), seed
        self.corr = lam.double()
        self.lam = self.corr
        self.state: Tensor | None = None
        self.t = -1

    @classmethod
    def from_params(cls, params: MarkovParams, facts: AvailabilityContext) -> Availability:
        if params.population == "dataset":
            population = dataset_population(FIELD, facts)
            return cls(population.pi, population.lam, facts.seed)
        pi, lam = cafed_population(params, facts.n)
        return cls(pi, lam, facts.seed)

    def mask(self, t: int) -> Tensor:
        if t == self.t and self.state is not None:
            return self.state.clone()
        u = torch.rand(len(self.pi), generator=torch_gen(self.seed, "availability", t)).double()
        if self.state is None or t == 0:
            on = u < self.pi
        else:
            lam = self.corr
            p_on = torch.where(self.state, lam + (1 - lam) * self.pi, (1 - lam) * self.pi)
            on = u < p_on
        self.state, self.t = on, t
        return on.clone()

    def state_dict(self) -> dict[str, Any]:
        return {"state": None if self.state is None else self.state.clone(), "t": self.t}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.state, self.t = state["state"], state["t"]


def cafed_population(cfg: MarkovParams, n: int) -> tuple[Tensor, Tensor]:
    """π, λ of CA-Fed's population.

    The first half of the clients is "more available" (π = ½ + g), the rest "less
    available" (π = ½ − g); in each half the first `correlated_share` are correlated
    (λ = ν), the others weakly correlated (λ = weak_lambda).
    """
    idx = torch.arange(n)
    half = n // 2 if n > 1 else 1
    more = idx < half
    pi = torch.where(more, 0.5 + cfg.g, 0.5 - cfg.g).double()
    rank = torch.where(more, idx, idx - half)
    size = torch.where(more, half, n - half)
    correlated = rank < torch.round(cfg.correlated_share * size)
    lam = torch.where(correlated, cfg.nu, cfg.weak_lambda).double()
    return pi, lam
