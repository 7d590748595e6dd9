"""A client population a dataset may declare: each client's availability π_k and
correlation λ_k (what `availability.markov.population = dataset` runs), and CA-Fed's
draw of it (its generator's `generate_tasks_types` and `compute_stability`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import numpy as np
import torch
from pydantic import Field
from torch import Tensor

# CA-Fed's joint distribution of client types. Rows: availability type (available,
# unavailable); columns: stability type (stable, shifting, unstable).
CAFED_TYPES = np.array([[0.0, 0.5, 0.0], [0.25, 0.25, 0.0]])
ERROR = 1e-8  # CA-Fed's margin that keeps λ strictly inside its bounds
SHIFT = 0.01  # the shifting clients' λ = (N(0, SHIFT²) + SHIFT) / 2

# The parameters of CA-Fed's population draw, for each component that draws it
PopulationG = Annotated[
    float,
    Field(
        ge=0, lt=0.5, description="The population's π = ½ ± g for available / unavailable clients."
    ),
]
PopulationNu = Annotated[
    float, Field(ge=0, lt=1, description="The population's λ of the stable clients (ν).")
]


@dataclass(frozen=True)
class Population:
    """π_k (stationary availability) and λ_k (lag-1 correlation) per client, float64."""

    pi: Tensor
    lam: Tensor


def type_counts(n: int, joint: np.ndarray) -> np.ndarray:
    """Clients per type (joint flattened row by row): ⌊n·p⌋, then one more to each
    type with a nonzero count, in order, while clients remain."""
    counts = (n * joint.flatten()).astype(int)
    remaining = n - int(counts.sum())
    for j in np.flatnonzero(counts):
        if remaining == 0:
            break
        counts[j] += 1
        remaining -= 1
    return counts


def client_types(
    n: int, joint: np.ndarray, rng: np.random.Generator, deterministic: bool = True
) -> np.ndarray:
    """(n, 2) availability and stability type ids: a random permutation of the
    clients is cut into consecutive blocks of `type_counts` (CA-Fed's deterministic
    split) or, with `deterministic` off, of counts drawn from Multinomial(n, joint)
    after the permutation (its stochastic split, which its MNIST generator uses);
    block j holds type (j // 3, j % 3)."""
    order = rng.permutation(n)
    counts = type_counts(n, joint) if deterministic else rng.multinomial(n, joint.flatten())
    types = np.zeros((n, 2), dtype=np.int64)
    for j, block in enumerate(np.split(order, np.cumsum(counts[:-1]))):
        types[block] = divmod(j, joint.shape[1])
    return types


def draw_cafed_population(
    n: int, g: float, nu: float, rng: np.random.Generator, joint: np.ndarray = CAFED_TYPES
) -> Population:
    """CA-Fed's population: client types drawn by `client_types` from `joint` (its
    deterministic split), then π and λ by `cafed_population`."""
    return cafed_population(client_types(n, joint, rng), g, nu, rng)


def cafed_population(
    types: np.ndarray, g: float, nu: float, rng: np.random.Generator
) -> Population:
    """π and λ of clients of the given types (`client_types`): π = ½ + g (available)
    or ½ − g (unavailable), and

    stable: λ = max(ν, b + ε); shifting: λ = clip((z + 0.01) / 2, b' + ε, 1 − ε) with
    z ~ N(0, 0.01²) drawn per shifting client in client order; unstable: λ = max(−ν, b + ε),

    where b = max(1 − 1/π, 1 − 1/(1 − π)) is the least λ for which the chain's
    transition probabilities (1−λ)π and (1−λ)(1−π) stay ≤ 1, ε = 1e-8, and (as CA-Fed
    writes it) b' = max(−1 + ε, 1 − 1/π + ε, 1 − 1/(1 − π)).
    """
    pi = np.where(types[:, 0] == 0, 0.5 + g, 0.5 - g)
    low, high = 1 - 1 / pi, 1 - 1 / (1 - pi)
    bound = np.maximum(low, high) + ERROR
    stability = types[:, 1]
    shifting = stability == 1
    z = rng.normal(0.0, SHIFT, size=int(shifting.sum()))
    floor = np.maximum(np.maximum(-1 + ERROR, low + ERROR), high) + ERROR
    lam = np.where(stability == 0, np.maximum(nu, bound), np.maximum(-nu, bound))
    lam[shifting] = np.clip(0.5 * (z + SHIFT), floor[shifting], 1 - ERROR)
    return Population(torch.as_tensor(pi), torch.as_tensor(lam))
