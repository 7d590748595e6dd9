"""An algorithm's own metrics reach the round records; undeclared ones are refused."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor

from worker.engine import ListSink, build_config, run_config_for, simulate
from worker.engine.algorithms.base import Algorithm, Plan, Step
from worker.engine.components import builtin
from worker.engine.masks import Available
from worker.engine.registry import algorithm


def records(name: str) -> list[dict[str, float]]:
    config = build_config(
        {"rounds": 3, "data": {"n_clients": 6}, "algorithm": {"participation": 3}},
        [f"algorithm.name={name}", "availability.kind=markov"],
    )
    sink = ListSink()
    simulate(config, sink)
    return [r.metrics for r in sink.records]


def test_fedar_and_cafed_metrics_are_recorded_every_round() -> None:
    fedar, cafed = records("fedar"), records("cafed")

    assert all({"fedar_n_t", "memory_filled"} <= set(m) for m in fedar)
    assert all(0 <= m["fedar_n_t"] <= 6 and 0 <= m["memory_filled"] <= 1 for m in fedar)
    assert all("cafed_excluded" in m for m in cafed)
    assert cafed[0]["cafed_excluded"] == 0  # no loss reported yet: nobody is excluded


def test_a_metric_the_class_does_not_declare_stops_the_run() -> None:
    @algorithm("chatty")
    class Chatty(Algorithm):
        def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
            return Plan(available.ids)

        def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
            return Step(None, torch.zeros(self.facts.n), {"chatty_words": 1.0})

    run_config = run_config_for(builtin().include(Chatty))
    config = run_config.model_validate({"rounds": 1, "algorithm": {"name": "chatty"}})

    with pytest.raises(RuntimeError, match=r"'chatty'.*\['chatty_words'\]"):
        simulate(config, ListSink())
