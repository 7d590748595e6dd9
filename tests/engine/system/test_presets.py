"""The presets in simulated time: their methods, what each does to a round, and the
stragglers' ordering in simulated time to the target accuracy."""

from __future__ import annotations

import pytest

from worker.engine import ListSink, simulate
from worker.presets import Method, Preset, get_preset

TIMED = ["stragglers", "fedscale-trace"]


def run(preset: Preset, method: Method, *extra: str) -> ListSink:
    sink = ListSink()
    simulate(preset.run_config([*method.as_overrides(), *extra]), sink)
    return sink


@pytest.mark.parametrize("name", TIMED)
def test_methods_and_what_they_do_to_a_round(name: str) -> None:
    preset = get_preset(name)
    assert preset.method_names == ["fedavg", "fedavg-deadline", "fednova-partial"]
    plain, deadline, nova = (run(preset, m, "rounds=40", "eval.every=40") for m in preset.compare)

    def mean(sink: ListSink, metric: str) -> float:
        return sum(r.metrics[metric] for r in sink.records) / len(sink.records)

    limit = preset.compare[1].set["round.deadline_s"]
    assert all(r.metrics["round_time_s"] <= limit + 1e-9 for r in deadline.records[1:])
    assert mean(deadline, "round_time_s") < mean(plain, "round_time_s")
    assert sum(r.metrics["partial_updates"] for r in nova.records) > 0
    assert all(r.metrics["partial_updates"] == 0 for r in (*plain.records, *deadline.records))


@pytest.mark.slow
def test_stragglers_deadline_and_partial_work_reach_the_target_first() -> None:
    times = seconds_to_target(get_preset("stragglers"))

    # seed 0 (README: seeds 0-2): 167 s for FedAvg, 71 s and 73 s with a deadline
    assert times["fedavg-deadline"] < times["fedavg"] / 2
    assert times["fednova-partial"] < times["fedavg"] / 2


def test_async_vs_sync_methods() -> None:
    preset = get_preset("async-vs-sync")
    assert preset.method_names == ["fedavg-deadline", "fedbuff", "fedasync"]
    sync, buffered, mixed = (
        run(preset, m, f"rounds={40 if m.algorithm != 'fedasync' else 400}", "eval.every=400")
        for m in preset.compare
    )

    # FedBuff's 40 updates of 10 arrivals and FedAsync's 400 of one: the same arrivals
    assert buffered.records[-1].metrics["sim_time_s"] == mixed.records[-1].metrics["sim_time_s"]
    assert max(r.metrics["update_staleness_max"] for r in mixed.records) > 10
    assert "update_staleness_max" not in sync.records[-1].metrics


@pytest.mark.slow
def test_async_reaches_the_target_before_sync() -> None:
    times = seconds_to_target(get_preset("async-vs-sync"))

    # seed 0 (docs/concepts/async.md): 168 s for FedAvg, 81 s FedBuff, 63 s FedAsync
    assert times["fedbuff"] < times["fedavg-deadline"] / 1.5
    assert times["fedasync"] < times["fedavg-deadline"] / 1.5


def seconds_to_target(preset: Preset) -> dict[str, float]:
    """Each method's simulated seconds to the preset's target accuracy, seed 0."""
    times: dict[str, float] = {}
    for method in preset.compare:
        config = preset.run_config([*method.as_overrides(), "seed=0"])
        reached = simulate(config, ListSink())["time_to_target_s"]
        assert reached is not None, method.name
        times[method.name] = reached
    return times
