"""A round as the command line writes it, turned into what the SDK sends; the run it
declares, with the availability period round 0 carries."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from fedwatch.cli import recording
from fedwatch.cli.recording import RunSink, Target, period_of, recorded, round_entry
from fedwatch.client import FedWatch
from fedwatch.spool import read_spool
from tests.service.servers import free_port
from worker.engine import ListSink, simulate
from worker.presets import get_preset


def test_a_rounds_fields_are_kept_apart_from_its_metrics() -> None:
    record = {
        "round": 4,
        "test_acc": 0.5,
        "train_loss": math.nan,
        "available": [0, 2],
        "selected": [2],
        "weights": {"2": 1.0},
        "wall_s": 0.25,
        "client_acc": [0.5, math.inf, 1.0],
        "timeline": {"ids": [2]},
        "clients": {"data_share": [0.5, 0.5]},
    }

    assert round_entry(record) == {
        "round": 4,
        "metrics": {"test_acc": 0.5, "train_loss": None},
        "available": [0, 2],
        "selected": [2],
        "weights": {"2": 1.0},
        "client_acc": [0.5, None, 1.0],
    }


def test_a_round_with_only_its_number_has_no_clients() -> None:
    assert round_entry({"round": 0}) == {"round": 0, "metrics": {}}


def test_the_period_is_read_from_round_0s_facts() -> None:
    facts = {"data_share": [0.5, 0.5], "work_s": None}
    assert period_of({"round": 0, "clients": {**facts, "availability_period": 40}}) == 40
    assert period_of({"round": 0, "clients": facts}) is None  # a model that does not repeat
    assert period_of({"round": 1}) is None


def offline(spool: Path) -> FedWatch:
    """A client of a server that is down: everything stays in `spool`."""
    return FedWatch(f"http://127.0.0.1:{free_port()}", spool_dir=spool, finish_timeout_s=0.2)


def test_the_run_is_declared_at_its_first_round_with_its_period(tmp_path: Path) -> None:
    config = get_preset("example1").run_config(["rounds=3"])
    sink = RunSink(offline(tmp_path), config, "example1", None)

    simulate(config, sink)

    assert sink.run is not None
    sink.run.finish()
    spooled = read_spool(sink.run.spool_path)
    assert spooled.declaration["availability_period"] == 40  # E₀ + E₁ = 30 + 10
    assert [r["round"] for r in spooled.rounds] == [0, 1, 2]


def test_a_run_that_fails_before_its_first_round_is_still_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recording, "FedWatch", lambda _url, _token: offline(tmp_path))
    config = get_preset("example1").run_config(["rounds=3"])

    with pytest.raises(RuntimeError), recorded(ListSink(), config, "x", Target("unused", None)):
        raise RuntimeError("the data would not load")

    (spool,) = tmp_path.glob("*.jsonl")
    spooled = read_spool(spool)
    assert "availability_period" not in spooled.declaration  # it never got to know it
    assert spooled.rounds == []
    assert spooled.finish is not None and spooled.finish["status"] == "failed"
    assert "the data would not load" in spooled.finish["message"]
