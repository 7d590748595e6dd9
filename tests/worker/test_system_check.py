"""System models built apart (`worker/system_check.py`): each spec's verdict comes back
in order, whatever the model does in its process: builds, refuses, outgrows the memory
cap, or dies."""

from __future__ import annotations

import os
from typing import Any

import pytest
import torch

from worker import child
from worker.engine import ConfigError
from worker.engine.system import SystemContext, SystemModel, SystemSpec
from worker.system_check import check_systems

CAP_MB = 64


@pytest.fixture(scope="module", autouse=True)
def fork_server() -> None:
    """The fork server started once (it imports torch: seconds), as a server starts it."""
    child.warm_up()


class Steady(SystemModel):
    def __init__(self, params: Any, facts: SystemContext) -> None:
        self.s_per_sample = torch.full((facts.n,), 0.01, dtype=torch.float64)
        self.down_bps = self.up_bps = torch.full((facts.n,), 1e6, dtype=torch.float64)


class Refusing(SystemModel):
    def __init__(self, params: Any, facts: SystemContext) -> None:
        raise ConfigError(f"system.refusing.file: {params} is not a trace")


class Greedy(SystemModel):
    def __init__(self, params: Any, facts: SystemContext) -> None:
        self.held: list[list[int]] = [[] for _ in range(10_000_000)]  # about 640 MB of empty lists


class Dying(SystemModel):
    def __init__(self, params: Any, facts: SystemContext) -> None:
        os._exit(3)


def spec(kind: str, component: type[SystemModel], params: Any = None) -> SystemSpec:
    return SystemSpec(kind, component, params, SystemContext(n=4, seed=0, root="/nowhere"))


def test_each_spec_gets_its_verdict_in_order() -> None:
    specs = [spec("steady", Steady), spec("refusing", Refusing, "x.pkl"), spec("greedy", Greedy)]

    verdicts = check_systems(specs, CAP_MB)

    assert verdicts == [
        None,
        "system.refusing.file: x.pkl is not a trace",
        "system.greedy: its files ran out of memory while they were read, past the 64 MiB "
        "this server gives reading system files (FEDWATCH_MAX_FILE_READ_MB)",
    ]


def test_a_process_that_dies_refuses_every_spec_it_held() -> None:
    verdicts = check_systems([spec("steady", Steady), spec("dying", Dying)], CAP_MB)

    why = "its files could not be read (the reading process ended with status 3)"
    assert verdicts == [f"system.steady: {why}", f"system.dying: {why}"]


def test_nothing_to_check_starts_no_process() -> None:
    assert check_systems([], CAP_MB) == []
