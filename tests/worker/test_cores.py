"""Which cores the embedded server and its runs use (`worker/cores.py`)."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from tests.api.helpers import example1, submit
from tests.eventually import eventually
from worker.child import process_name
from worker.cores import split

CORES = frozenset(os.sched_getaffinity(0))


def test_split_by_hand() -> None:
    assert split([0, 1]) == (frozenset({0}), frozenset({1}))
    assert split([5, 2, 0]) == (frozenset({0}), frozenset({2, 5}))
    assert split([3, 3]) is None  # one core (named twice): nothing to keep apart
    assert split([]) is None


def affinity(pid: int | str) -> frozenset[int]:
    return frozenset(os.sched_getaffinity(int(pid)))


def run_process(run_id: int) -> str:
    """The process id of the run's process, once it has started (it names itself)."""
    name = f"{process_name(run_id)}\n"

    def started() -> str | None:
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and (proc / "comm").read_text() == name:
                    return proc.name
            except OSError:
                continue
        return None

    return eventually(started, f"run {run_id}'s process starting")


def threads_cores(pid: int | str) -> set[frozenset[int]]:
    """The cores each thread of a process may run on."""
    return {affinity(task.name) for task in Path(f"/proc/{pid}/task").iterdir()}


@pytest.mark.service
@pytest.mark.skipif(len(CORES) < 2, reason="one core: nothing to keep apart")
@pytest.mark.parametrize("setting", ["apart", "shared"])
def test_runs_off_the_api_core(tmp_path: Path, setting: str) -> None:
    from tests.service.servers import free_port, serve

    port = free_port()
    server = serve(
        f"sqlite:///{tmp_path / 'db.sqlite3'}",
        port,
        tmp_path / "serve.log",
        FEDWATCH_RUN_CORES=setting,
    )
    try:
        api = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10)
        run = submit(api, example1(1_000_000))
        pid = run_process(run["id"])
        api_core, run_cores = split(CORES) or (CORES, CORES)
        if setting == "apart":
            assert threads_cores(server.pid) == {api_core}
            assert threads_cores(pid) == {run_cores}
        else:
            assert threads_cores(server.pid) == {CORES}
            assert threads_cores(pid) == {CORES}
        api.post(f"/api/runs/{run['id']}/cancel").raise_for_status()
    finally:
        server.terminate()
        server.wait(timeout=30)
