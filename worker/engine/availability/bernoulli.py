"""Independent availability: client k is present with probability p_k every round."""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.availability.base import Availability
from worker.engine.config import BernoulliConfig
from worker.engine.rng import torch_gen


def bernoulli_probabilities(
    cfg: BernoulliConfig, client_class: Tensor, n_classes: int, seed: int
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


class Bernoulli(Availability):
    def __init__(self, p: Tensor, seed: int) -> None:
        self.pi = p
        self.lam = torch.zeros_like(p)
        self.seed = seed

    def mask(self, t: int) -> Tensor:
        u = torch.rand(len(self.pi), generator=torch_gen(self.seed, "availability", t))
        return u.double() < self.pi
