"""Small algorithm contexts for hand-computed tests."""

from __future__ import annotations

import torch

from worker.engine.algorithms import Context
from worker.engine.overrides import build_config


def make_context(
    alpha: list[float], dim: int, k: int, assignments: list[str] | None = None
) -> Context:
    n = len(alpha)
    config = build_config(
        {"data": {"dataset": "synthetic_clustered", "n_clients": n}},
        [f"algorithm.participation={k}", *(assignments or [])],
    )
    return Context(
        n=n,
        dim=dim,
        k=k,
        alpha=torch.tensor(alpha),
        device=torch.device("cpu"),
        config=config,
        pi=torch.ones(n, dtype=torch.float64),
        lam=None,
        probe_loss=lambda w, clients, t: torch.zeros(len(clients)),
    )


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def mask(*bits: int) -> torch.Tensor:
    return torch.tensor(bits, dtype=torch.bool)
