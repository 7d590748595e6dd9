"""The availability-model interface: a reproducible boolean vector of clients per round."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import Tensor

from worker.engine.data.population import Population
from worker.engine.errors import ConfigError
from worker.engine.params import RunShape
from worker.engine.registry import availability


@dataclass(frozen=True)
class AvailabilityContext:
    """What an availability model is built from besides its params: the number of
    clients, each client's smallest label (`client_class`, what label-driven models
    group by), the dataset's number of classes, the run's seed, and the clients' π and
    λ where the dataset declares them (`population`, see `dataset_population`)."""

    n: int
    client_class: Tensor
    n_classes: int
    seed: int
    population: Population | None = None


def check_dataset_population(field: str, run: RunShape) -> None:
    """`field` = dataset needs a dataset that declares a population."""
    if not run.data.population:
        raise ConfigError(
            f"{field}: 'dataset' takes π and λ from the dataset, and data.dataset "
            f"{run.dataset!r} declares none"
        )


def dataset_population(field: str, facts: AvailabilityContext) -> Population:
    """The dataset's population, for a model whose `field` is dataset."""
    if facts.population is None:
        raise ConfigError(f"{field}: 'dataset' takes π and λ from the dataset, which has none")
    return facts.population


class Availability(ABC):
    """`mask(t)` is called with t = 0, 1, 2, ...; `pi` is the true availability π_k.

    `lam` is the correlation λ_k (second eigenvalue of the client's chain) where the
    model defines one; `period` the number of rounds after which a periodic model's
    pattern repeats (diurnal: E₀ + E₁), None for the others; `independent` whether each
    client's availability in a round is drawn independently of its other rounds, with
    probability π_k (the privacy accountant then amplifies by sampling at π_k).
    Randomness for round t comes from a generator derived from (seed, t)
    (`worker.engine.rng.torch_gen`), so only models with memory (Markov) carry state
    across rounds, listed by `state_dict`.
    """

    pi: Tensor
    lam: Tensor | None = None
    period: int | None = None
    independent: ClassVar[bool] = False

    @classmethod
    def from_params(cls, params: Any, facts: AvailabilityContext) -> Availability:
        """The model for a run: `cls(params, facts)` unless a subclass says otherwise."""
        return cls(params, facts)  # type: ignore[call-arg]

    @abstractmethod
    def mask(self, t: int) -> Tensor: ...

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        del state


@availability("always", label="always available")
class Always(Availability):
    def __init__(self, n: int) -> None:
        self.pi = torch.ones(n, dtype=torch.float64)
        self.lam = torch.zeros(n, dtype=torch.float64)

    @classmethod
    def from_params(cls, params: Any, facts: AvailabilityContext) -> Availability:
        return cls(facts.n)

    def mask(self, t: int) -> Tensor:
        return torch.ones(len(self.pi), dtype=torch.bool)
