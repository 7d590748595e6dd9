"""FedAU: its weights by hand, and its behaviour: it removes FedAvg's bias under
heterogeneous availability."""

from __future__ import annotations

import statistics

import pytest
import torch
from fedau.algorithm import WEIGHT_MEAN, FedAu, FedAuParams

from fedwatch.plugins import AlgorithmContext, Available
from worker.engine import ListSink, current, run_config_for, simulate


def facts(n: int) -> AlgorithmContext:
    return AlgorithmContext(
        n=n, dim=1, k=n, alpha=torch.full((n,), 1.0 / n), device=torch.device("cpu"),
        pi=torch.ones(n, dtype=torch.float64), lam=None,
        probe_loss=lambda w, clients, t: torch.zeros(len(clients)),
        rounds=10, server_lr=1.0, seed=0, local_steps=1,
    )  # fmt: skip


def test_weights_by_hand() -> None:
    # Cut-off K = 3, α = ½ each. Client 0 is available in rounds 0-3, client 1 in rounds
    # 2 and 6; everyone available trains. Client 1: round 2, no interval yet -> ω = 1,
    # then an interval of 3 (rounds 0-2); absent in rounds 3-5 -> a cut-off interval of
    # 3; round 6: ω = mean(3, 3) = 3, then an interval of 1. Client 0: intervals of 1
    # (ω = 1), then absent in rounds 4-6 -> a cut-off interval of 3.
    fedau = FedAu(FedAuParams(cutoff=3), facts(2))
    available = {0: [0], 1: [0], 2: [0, 1], 3: [0], 4: [], 5: [], 6: [1]}
    got = []
    for t, ids in available.items():
        plan = fedau.select(t, torch.zeros(1), mask(ids), torch.Generator())
        assert plan.selected.tolist() == ids
        step = fedau.aggregate(t, torch.zeros(1), plan, torch.ones(len(ids), 1), 0.1)
        direction = None if step.direction is None else step.direction.tolist()
        weights = step.dense_weights(2).tolist()
        got.append((weights, direction, step.metrics.get(WEIGHT_MEAN.name)))
    assert got[2] == ([0.5, 0.5], [1.0], 1.0)  # α_i ω_i; Σ α_i ω_i Δ_i with Δ = 1
    assert got[4] == ([0.0, 0.0], None, None)  # nobody trained: no update, no metric
    assert got[6] == ([0.0, 1.5], [1.5], 3.0)
    assert fedau.intervals.tolist() == [5, 3]
    assert fedau.interval_sum.tolist() == [7.0, 7.0]
    assert fedau.absent.tolist() == [0, 0]


def mask(ids: list[int]) -> Available:
    out = torch.zeros(2, dtype=torch.bool)
    out[ids] = True
    return Available.of(out)


def late_average(algorithm: str) -> float:
    """x averaged over the last 500 of 3000 rounds: two clients with means +1 and −1
    (the optimum of the uniform objective is 0); client 0 is always available, client
    1 one round in ten."""
    config = run_config_for(current()).model_validate(
        {
            "rounds": 3000,
            "device": "cpu",
            "data": {"dataset": "mean_estimation", "n_clients": 2, "partition": "iid",
                     "mean_estimation": {"means": [1.0, -1.0], "train_per_client": 10,
                                         "test_per_client": 10}},
            "model": {"name": "scalar", "scalar": {"init": 0.0}},
            "availability": {"kind": "trace", "trace": {"csv": "0,0,3000\n1,0,1,10"}},
            "algorithm": {"name": algorithm, "participation": 2, "weights": "uniform"},
            "client": {"local_steps": 1, "batch_size": 1, "lr": 0.01},
        }
    )  # fmt: skip
    sink = ListSink()
    simulate(config, sink)
    return statistics.fmean(r.metrics["param"] for r in sink.records[-500:])


@pytest.mark.slow
def test_fedau_removes_the_bias_of_fedavg() -> None:
    fedavg, fedau = late_average("fedavg"), late_average("fedau")
    assert fedavg > 0.5  # pulled towards the client that is always there
    assert abs(fedau) < 0.1  # the participation intervals undo it
