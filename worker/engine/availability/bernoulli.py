"""Independent availability: client k is present with probability p_k every round.

A round's draw, for N clients: up to `KEPT_STREAMS_UP_TO` clients, N uniform float32
numbers from torch's generator, u_k < p_k, compared in float32 against the smallest
float32 at least p_k (the same outcome as comparing u_k with p_k in float64, for half
the memory traffic); above it, a 32-bit word per client from NumPy's PCG64, present
where word_k ≤ ⌈p_k·2³²⌉ − 1 (probability ⌈p_k·2³²⌉/2³², within 2⁻³² of p_k). The word's
top byte is drawn for every client, its other 24 bits only where the byte ties with the
threshold's (one client in 256): a quarter of the random numbers, and at 10⁶ clients,
one thread, about 0.7 ms against 1.5 ms for whole words (`bench/population.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
from pydantic import Field
from torch import Tensor

from worker.engine.availability.base import Availability, AvailabilityContext
from worker.engine.params import Params
from worker.engine.registry import availability
from worker.engine.rng import KEPT_STREAMS_UP_TO, numpy_gen, torch_gen


class BernoulliParams(Params):
    profile: Literal["constant", "uniform", "by_class"] = Field(
        "constant", description="constant p; uniform p_k~U[p_min,1]; by_class (MIFA)."
    )
    p: float = Field(0.5, gt=0, le=1, description="constant: availability probability.")
    p_min: float = Field(0.1, gt=0, le=1, description="uniform/by_class: smallest p_k.")


def bernoulli_probabilities(
    cfg: BernoulliParams, client_class: Tensor, n_classes: int, seed: int
) -> Tensor:
    """p_k: constant; uniform U[p_min, 1] (FedAR); or by_class (MIFA: rare classes rarest).

    by_class: p_k = p_min + (1 − p_min)·(smallest label of k)/(n_classes − 1).
    """
    n = len(client_class)
    if cfg.profile == "constant":
        return torch.full((n,), cfg.p, dtype=torch.float64)
    if cfg.profile == "uniform":
        u = torch.rand(n, generator=torch_gen(seed, "availability-profile"), dtype=torch.float64)
        return cfg.p_min + (1 - cfg.p_min) * u
    share = client_class.double() / max(n_classes - 1, 1)
    return cfg.p_min + (1 - cfg.p_min) * share


def float32_ceiling(p: Tensor) -> Tensor:
    """The smallest float32 at least each p_k (float64): for a float32 u, u < p_k
    exactly when u < float32_ceiling(p)_k."""
    rounded = p.float()
    up = torch.nextafter(rounded, torch.tensor(float("inf")))
    return torch.where(rounded.double() < p, up, rounded)


def word_thresholds(p: Tensor) -> np.ndarray:
    """⌈p_k·2³²⌉ − 1 as uint32, for p_k in (0, 1]: a uniform 32-bit word is at most it
    with probability ⌈p_k·2³²⌉/2³² (p_k itself where p_k·2³² is a whole number); one
    number (a 0-d array) where every client has the same, which the words are compared
    with at half the memory traffic."""
    below = (np.ceil(p.double().numpy() * 2.0**32) - 1).clip(0, 2**32 - 1).astype(np.uint32)
    return below[:1].reshape(()) if len(below) and (below == below[0]).all() else below


@dataclass(frozen=True)
class SplitThresholds:
    """Word thresholds (`word_thresholds`) cut into their top bytes and the 24 bits
    below them, each 0-d where every client has the same."""

    top: np.ndarray  # uint8
    rest: np.ndarray  # uint32, < 2²⁴

    @classmethod
    def of(cls, below: np.ndarray) -> SplitThresholds:
        return cls((below >> 24).astype(np.uint8), below & np.uint32(0xFFFFFF))


def present_words(gen: np.random.Generator, split: SplitThresholds, n: int) -> np.ndarray:
    """(n,) bool: client k present where a uniform 32-bit word b_k·2²⁴ + r_k is at most
    its threshold top_k·2²⁴ + rest_k.

    b_k is byte k of ⌈n/8⌉ raw 64-bit outputs of `gen`'s generator, read little-endian:
    present where b_k < top_k, absent where b_k > top_k. The clients where b_k = top_k
    take one more raw output each, in increasing k, whose low 24 bits are r_k: present
    where r_k ≤ rest_k."""
    bits = gen.bit_generator
    byte = bits.random_raw((n + 7) // 8).astype("<u8", copy=False).view(np.uint8)[:n]
    out = byte < split.top
    tied = np.flatnonzero(byte == split.top)
    if len(tied):
        low = bits.random_raw(len(tied)) & np.uint64(0xFFFFFF)
        out[tied] = low <= (split.rest if split.rest.ndim == 0 else split.rest[tied])
    return out


@availability("bernoulli", params=BernoulliParams, label="Bernoulli")
class Bernoulli(Availability):
    independent = True

    def __init__(self, p: Tensor, seed: int) -> None:
        self.pi = p
        self.lam = torch.zeros_like(p)
        self.seed = seed
        words = len(p) > KEPT_STREAMS_UP_TO
        self.split = SplitThresholds.of(word_thresholds(p)) if words else None
        self.ceiling = None if words else float32_ceiling(p)  # torch's draw

    @classmethod
    def from_params(cls, params: BernoulliParams, facts: AvailabilityContext) -> Availability:
        p = bernoulli_probabilities(params, facts.client_class, facts.n_classes, facts.seed)
        return cls(p, facts.seed)

    def mask(self, t: int) -> Tensor:
        n = len(self.pi)
        if self.split is not None:
            gen = numpy_gen(self.seed, "availability", t)
            return torch.from_numpy(present_words(gen, self.split, n))
        assert self.ceiling is not None
        return torch.rand(n, generator=torch_gen(self.seed, "availability", t)) < self.ceiling
