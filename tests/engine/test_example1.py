"""FedLaAvg's Example 1: FedAvg is biased by availability, memory-based methods are not."""

import pytest

from worker.engine import ListSink, simulate
from worker.engine.presets import get_preset


def params(algorithm: str) -> list[float]:
    sink = ListSink()
    simulate(get_preset("example1").run_config([f"algorithm.name={algorithm}"]), sink)
    return [r.metrics["param"] for r in sink.records]


def test_fedavg_oscillates_around_the_availability_weighted_mean() -> None:
    p = params("fedavg")

    # (30·1 + 10·(−1)) / 40 = 0.5, not the optimum 0
    assert sum(p[-40:]) / 40 == pytest.approx(0.5, abs=0.05)
    assert max(p[-40:]) - min(p[-40:]) > 0.1


@pytest.mark.parametrize("algorithm", ["fedlaavg", "mifa", "fedvarp"])
def test_memory_methods_converge_to_the_optimum(algorithm: str) -> None:
    assert abs(params(algorithm)[-1]) < 0.01
