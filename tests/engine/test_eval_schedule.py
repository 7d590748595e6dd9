"""The eval schedules (a registry, `worker/engine/schedules.py`): CA-Fed's log rounds
(the initial model, then the authors' log rounds) and the time-average over them, the
paper's definition; a registered schedule."""

from __future__ import annotations

import pytest

from worker.engine import ListSink, build_config, run_config_for, simulate
from worker.engine.components import builtin
from worker.engine.loop import evaluated
from worker.engine.registry import schedule
from worker.engine.schedules import Schedule
from worker.engine.summary import summarise

# The CA-Fed code's 28 logged points over 150 rounds, as rounds completed (0 = initial).
CAFED_LOG = [0, 2, 5, 8, 10, 11, 14, 17, 20, 23, 26, 29, 30, 32, 35, 38, 40]
CAFED_LOG += list(range(50, 151, 10))


def test_cafed_log_rounds_by_hand() -> None:
    ev = build_config({}, ["eval.schedule=cafed_log"]).eval

    after = [t + 1 for t in range(150) if evaluated(ev, t)]

    assert [0, *after] == CAFED_LOG
    assert len(CAFED_LOG) == 28


def test_every_schedule_is_unchanged() -> None:
    ev = build_config({}, ["eval.every=5"]).eval

    assert [t for t in range(12) if evaluated(ev, t)] == [0, 4, 9]


def test_the_time_average_counts_the_initial_model() -> None:
    rounds = [(0, {"initial_test_acc": 0.5, "n_selected": 1.0}), (1, {"test_acc": 0.7})]
    rounds += [(2, {"test_acc": 0.9})]

    summary = summarise(rounds, 3, 1.0, None)

    assert summary["time_avg_test_acc"] == pytest.approx(0.7)  # (0.5 + 0.7 + 0.9) / 3
    assert summary["time_avg_points"] == 3
    assert summary["final_test_acc"] == 0.9
    assert summary["std_test_acc_second_half"] == pytest.approx(0.1)  # rounds 1, 2


def test_a_run_on_the_log_schedule_evaluates_28_points() -> None:
    config = build_config(
        {"data": {"n_clients": 4}, "rounds": 150},
        ["eval.schedule=cafed_log", "algorithm.participation=2", "client.local_steps=1"],
    )
    sink = ListSink()

    summary = simulate(config, sink)

    evaluated_rounds = [r.round + 1 for r in sink.records if "test_acc" in r.metrics]
    assert [0, *evaluated_rounds] == CAFED_LOG
    assert "initial_test_acc" in sink.records[0].metrics
    assert summary["time_avg_points"] == 28
    points = [sink.records[0].metrics["initial_test_acc"]]
    points += [r.metrics["test_acc"] for r in sink.records if "test_acc" in r.metrics]
    assert summary["time_avg_test_acc"] == pytest.approx(sum(points) / 28)


def test_a_registered_schedule_is_one_more_choice_of_a_rebuilt_run_config() -> None:
    odd = schedule("odd", label="after odd rounds")(Schedule(lambda ev, t: t % 2 == 1))
    run_config = run_config_for(builtin().include(odd))
    enum = run_config.model_json_schema()["$defs"]["EvalConfig"]["properties"]["schedule"]
    config = run_config.model_validate(
        {
            "data": {"n_clients": 4},
            "algorithm": {"participation": 2},
            "rounds": 6,
            "eval": {"schedule": "odd"},
        }
    )
    sink = ListSink()
    simulate(config, sink)

    assert enum["x-labels"]["odd"] == "after odd rounds"
    # after rounds 1 and 3 (0-based), and the last one, 5; no initial model
    assert [r.round for r in sink.records if "test_acc" in r.metrics] == [1, 3, 5]
    assert "initial_test_acc" not in sink.records[0].metrics
