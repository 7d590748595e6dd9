"""Start here: a hand-computed round of your algorithm."""

from __future__ import annotations

import pytest
import torch
from my_algorithm.algorithm import TRAINED, MyAlgorithm, MyParams

import fedwatch.plugins as fw


def test_one_round_by_hand() -> None:
    facts = fw.AlgorithmContext(
        n=3, dim=2, k=3, alpha=torch.tensor([0.5, 0.25, 0.25]), device=torch.device("cpu"),
        pi=torch.ones(3, dtype=torch.float64), lam=None,
        probe_loss=lambda w, clients, t: torch.zeros(len(clients)),
        rounds=1, server_lr=1.0, seed=0, local_steps=1,
    )  # fmt: skip
    algorithm = MyAlgorithm(MyParams(share=0.5), facts)
    available = fw.Available.of(torch.tensor([True, False, True]))
    plan = algorithm.select(0, torch.zeros(2), available, torch.Generator())
    assert plan.selected.tolist() == [0, 2]
    step = algorithm.aggregate(0, torch.zeros(2), plan, torch.tensor([[3.0, 0.0], [0.0, 3.0]]), 0.1)
    # α renormalised over {0, 2}: 2/3, 1/3; half of the averaged delta applied.
    assert step.dense_weights(3).tolist() == pytest.approx([1 / 3, 0.0, 1 / 6])
    assert step.direction is not None and step.direction.tolist() == pytest.approx([1.0, 0.5])
    assert step.metrics == {TRAINED.name: 2}
