from typing import Any

from tests.engine.contexts import make_context
from worker.engine import ListSink, build_config, simulate
from worker.engine.algorithms import FedProx


def test_prox_weight_comes_from_the_config() -> None:
    algo = FedProx(make_context([0.5, 0.5], dim=1, k=1, assignments=["algorithm.fedprox.mu=0.3"]))

    assert algo.prox_mu() == 0.3


def records(*assignments: str) -> list[dict[str, Any]]:
    sink = ListSink()
    simulate(build_config({"rounds": 3}, list(assignments)), sink)
    return [r.deterministic() for r in sink.records]


def test_zero_mu_is_fedavg_and_a_positive_mu_changes_the_run() -> None:
    fedavg = records("algorithm.name=fedavg")

    assert records("algorithm.name=fedprox", "algorithm.fedprox.mu=0") == fedavg
    assert records("algorithm.name=fedprox", "algorithm.fedprox.mu=5") != fedavg
