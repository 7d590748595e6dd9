"""Small algorithms for hand-computed tests: built as the loop builds them, with their
params validated through `RunConfig` and `AlgorithmContext` made up by the test."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import torch
from torch import Tensor

from worker.engine.algorithms import Algorithm, AlgorithmContext, Plan, Step
from worker.engine.algorithms.asynchronous import AsyncAlgorithm
from worker.engine.components import current
from worker.engine.masks import Available
from worker.engine.overrides import build_config
from worker.engine.registry import selected


def make_context(alpha: list[float], dim: int, k: int) -> AlgorithmContext:
    n = len(alpha)
    return AlgorithmContext(
        n=n,
        dim=dim,
        k=k,
        alpha=torch.tensor(alpha),
        device=torch.device("cpu"),
        pi=torch.ones(n, dtype=torch.float64),
        lam=None,
        probe_loss=lambda w, clients, t: torch.zeros(len(clients)),
        rounds=100,
        server_lr=1.0,
        seed=0,
        local_steps=5,
    )


def make_algorithm(
    algorithm: type[Algorithm] | str,
    alpha: list[float],
    dim: int,
    k: int,
    assignments: list[str] | None = None,
    **facts: Any,
) -> Any:
    """The algorithm (a registered class or name) with the params `assignments` give."""
    if isinstance(algorithm, str):
        name = algorithm
    else:
        name = next(e.name for e in current().algorithms if e.component is algorithm)
    n = len(alpha)
    clock = ["system.kind=profiles", f"algorithm.{name}.concurrency={min(k, n)}"]
    config = build_config(
        {"data": {"dataset": "synthetic_clustered", "n_clients": n}},
        [
            f"algorithm.name={name}",
            f"algorithm.participation={k}",
            *(
                clock
                if issubclass(current().algorithms.get(name).component, AsyncAlgorithm)
                else []
            ),
            *(assignments or []),
        ],
    )
    entry, params = selected(config.algorithm, current().algorithms)
    context = replace(
        make_context(alpha, dim, k),
        rounds=config.rounds,
        server_lr=config.server.lr,
        local_steps=config.client.local_steps,
        **facts,
    )
    return entry.component(params, context)


@dataclass
class Applied:
    """A round's step applied as the loop applies it."""

    w: Tensor
    weights: Tensor
    metrics: dict[str, float]


def aggregate(
    algo: Algorithm, t: int, w: Tensor, selected_ids: Tensor, deltas: Tensor, lr: float
) -> Applied:
    """`algo.aggregate` for the clients `selected_ids`, and the model it leads to."""
    step: Step = algo.aggregate(t, w, Plan(selected_ids), deltas, lr)
    new = w if step.direction is None else w + algo.facts.server_lr * step.direction
    return Applied(new, step.dense_weights(algo.facts.n), step.metrics)


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def mask(*bits: int) -> Available:
    return Available.of(torch.tensor(bits, dtype=torch.bool))
