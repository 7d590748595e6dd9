"""Which checkpoints load (`worker/engine/checkpoint.py`): the current version, a
version-1 checkpoint without the parts added later, and no other."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from tests.engine.sinks import CheckpointsSink
from worker.engine import ConfigError, ListSink, build_config, checkpoint, simulate
from worker.engine.loop import Simulation

SETS = ["rounds=8", "eval.checkpoint_every=4", "algorithm.name=cafed", "availability.kind=markov"]
MOMENTUM = ["server.momentum=0.9", "client.momentum=0.5", "client.momentum_state=keep"]


def as_version_1(state: dict[str, Any]) -> dict[str, Any]:
    """`state` as the engines before the parts added over time wrote it."""
    tracker = {k: v for k, v in state["tracker"].items() if k not in ("last_s", "summary")}
    summary = state["tracker"]["summary"]
    tracker |= {"acc": summary["acc"], "updates": summary["updates"], "last_loss": 0.5}
    algorithm = {k: v for k, v in state["algorithm"].items() if k != "started"}
    algorithm["reported"] = torch.tensor([False, state["algorithm"]["started"]])  # CA-Fed's mask
    old = {k: v for k, v in state.items() if k not in ("server", "trainer", "version")}
    return {**old, "version": 1, "tracker": tracker, "algorithm": algorithm}


def stopped_at_4(config: Any) -> dict[str, Any]:
    first = CheckpointsSink()
    simulate(config, first, should_stop=lambda: len(first.records) >= 4)
    saved = first.checkpoints[-1]
    assert saved["version"] == checkpoint.VERSION and saved["round"] == 4
    return saved


def test_a_version_1_checkpoint_resumes_the_rounds_as_they_ran() -> None:
    config = build_config({}, SETS)
    straight = ListSink()
    simulate(config, straight)
    saved = stopped_at_4(config)
    assert saved["algorithm"]["started"]

    resumed = ListSink()
    simulate(config, resumed, checkpoint=as_version_1(saved))

    expected = [r.deterministic() for r in straight.records[4:]]
    assert [r.deterministic() for r in resumed.records] == expected


def test_what_version_1_lacked_starts_as_in_a_new_run() -> None:
    # The momentum buffers (server and clients) restart at zero, as those engines did.
    config = build_config({}, [*SETS, *MOMENTUM])
    saved = stopped_at_4(config)
    assert saved["server"]["momentum"].abs().sum() > 0
    assert saved["trainer"]["momentum"].abs().sum() > 0
    sim = Simulation(config)

    sim.load_state_dict(as_version_1(saved))

    assert sim.start_round == 4 and sim.algorithm.state_dict()["started"]
    state = sim.state_dict(4)
    assert state["server"]["momentum"].abs().sum() == 0
    assert state["trainer"]["momentum"].abs().sum() == 0
    assert state["tracker"]["summary"]["last_values"] == {"test_loss": 0.5}


def test_a_current_checkpoint_passes_unchanged_and_other_versions_are_refused() -> None:
    state = {"version": checkpoint.VERSION, "round": 3}
    assert checkpoint.upgrade(state, dict, "fedavg") == state
    with pytest.raises(ConfigError, match=r"version 7 does not load here \(these do: 1, 2, 3\)"):
        checkpoint.upgrade({"version": 7}, dict, "fedavg")
