"""Every algorithm runs under every availability model; resume stays exact."""

from typing import Any

import pytest

from tests.engine.sinks import CheckpointsSink
from worker.engine import ListSink, RunConfig, build_config, simulate
from worker.engine.algorithms.asynchronous import AsyncAlgorithm
from worker.engine.components import current

TRACE = "client,start_round,end_round,period\n0,0,2,3\n1,1,3,3\n2,0,4"


def asynchronous(algorithm: str) -> bool:
    return issubclass(current().algorithms.get(algorithm).component, AsyncAlgorithm)


def config(algorithm: str, availability: str, rounds: int = 4) -> RunConfig:
    # an async algorithm runs on a clock, three clients at a time
    clock = ["system.kind=profiles", f"algorithm.{algorithm}.concurrency=3"]
    base: dict[str, Any] = {
        "rounds": rounds,
        "data": {"n_clients": 6, "train_per_client": 8, "test_per_client": 8},
        "algorithm": {"participation": 3},
        "client": {"local_steps": 2, "batch_size": 4, "lr": 0.1},
        "eval": {"client_every": 2, "checkpoint_every": 3},
    }
    return build_config(
        base,
        [
            f"algorithm.name={algorithm}",
            f"availability.kind={availability}",
            f"availability.trace.csv={TRACE}",
            "availability.diurnal.period=2",
            *(clock if asynchronous(algorithm) else []),
        ],
    )


@pytest.mark.parametrize("availability", current().availability.names())
@pytest.mark.parametrize("algorithm", current().algorithms.names())
def test_runs_a_few_rounds(algorithm: str, availability: str) -> None:
    sink = ListSink()

    summary = simulate(config(algorithm, availability), sink)

    assert len(sink.records) == 4
    assert summary["final_test_acc"] is not None
    last = sink.records[-1]
    assert last.client_acc is not None and len(last.client_acc) == 6
    # an async update's client was available when it started, maybe updates before
    assert (
        set(last.selected) <= set(last.available) or algorithm == "sgd" or asynchronous(algorithm)
    )


ISSUE3 = ["fedar", "cafed", "unbiased", "adafed", "fedavg_is", "f3ast", "scaffold", "fedadam"]


@pytest.mark.parametrize("algorithm", ISSUE3)
def test_resume_equals_uninterrupted_run(algorithm: str) -> None:
    cfg = config(algorithm, "markov", rounds=7)
    straight, first = ListSink(), CheckpointsSink()
    simulate(cfg, straight)
    simulate(cfg, first, should_stop=lambda: len(first.records) >= 4)
    # The periodic checkpoint (every 3 rounds), then the one where the run stopped.
    assert [c["round"] for c in first.checkpoints] == [3, 4]

    for checkpoint in first.checkpoints:
        resumed = ListSink()
        simulate(cfg, resumed, checkpoint=checkpoint)

        combined = [
            r.deterministic() for r in first.records[: checkpoint["round"]] + resumed.records
        ]
        assert combined == [r.deterministic() for r in straight.records]
