"""FedLaAvg's Example 1: FedAvg is biased by availability, memory-based methods are not."""

from typing import Any

import pytest

from worker.engine import ListSink, simulate
from worker.presets import get_preset, references_for


def params(algorithm: str) -> list[float]:
    sink = ListSink()
    simulate(get_preset("example1").run_config([f"algorithm.name={algorithm}"]), sink)
    return [r.metrics["param"] for r in sink.records]


def period_average(algorithm: str) -> Any:
    config = get_preset("example1").run_config([f"algorithm.name={algorithm}", "rounds=1200"])
    return simulate(config, ListSink()).to_dict()["period_avg_param"]


def test_fedavg_oscillates_around_the_availability_weighted_mean() -> None:
    p = params("fedavg")

    # (30·1 + 10·(−1)) / 40 = 0.5, not the optimum 0
    assert sum(p[-40:]) / 40 == pytest.approx(0.5, abs=0.05)
    assert max(p[-40:]) - min(p[-40:]) > 0.1


@pytest.mark.parametrize("algorithm", ["fedlaavg", "mifa", "fedvarp"])
def test_memory_methods_converge_to_the_optimum(algorithm: str) -> None:
    assert abs(params(algorithm)[-1]) < 0.01


def test_the_summary_gives_the_papers_result_not_the_last_x() -> None:
    # The diurnal period is E₀ + E₁ = 30 + 10 rounds; FedAvg's mean over it is 0.5 while
    # its last x is wherever the oscillation stopped.
    assert period_average("fedavg") == pytest.approx(0.5, abs=1e-4)
    assert period_average("fedlaavg") == pytest.approx(0.0, abs=1e-3)


def test_the_preset_declares_the_lines_its_chart_marks() -> None:
    preset = get_preset("example1")
    lines = {r.value: r.label for r in preset.references["param"]}
    assert lines == {0.5: "FedAvg's limit 0.5", 0.0: "optimum x* = 0"}
    config = preset.run_config(["algorithm.name=mifa", "rounds=10", "seed=3"])
    assert references_for(config.model_dump(mode="json")) == preset.references
    moved = preset.run_config(["data.mean_estimation.means=[2, -1]"]).model_dump(mode="json")
    assert references_for(moved) == {}
    assert references_for({"name": "external"}) == {}
    # stored before the dataset's own fields moved (flat `data.means`, ...), and holding
    # the parameters of components it did not select: the same problem
    stored = config.model_dump(mode="json")
    flat = {k: v for k, v in stored["data"].items() if k != "mean_estimation"}
    old = {**stored, "data": {**flat, **stored["data"]["mean_estimation"]}}
    assert "means" in old["data"] and references_for(old) == preset.references


def test_round_0_carries_the_availability_period() -> None:
    periodic, always = ListSink(), ListSink()
    simulate(get_preset("example1").run_config(["rounds=2"]), periodic)
    simulate(get_preset("example1").run_config(["rounds=2", "availability.kind=always"]), always)

    first, second = periodic.records
    assert first.clients is not None and first.clients.availability_period == 40  # 30 + 10
    assert first.to_dict()["clients"]["availability_period"] == 40
    assert second.clients is None
    facts = always.records[0].clients
    assert facts is not None and facts.availability_period is None  # no period to repeat
    assert "availability_period" not in facts.to_dict()
