"""Runs execute in processes of their own: cancel and delete at any moment, several runs
at once, a memory cap that fails the run and spares the server, crashes counted."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from db.runs import new_run
from tests.api.helpers import embedded_settings, example1, submit, wait_final
from tests.eventually import eventually
from worker.child import process_name
from worker.engine import run_config_for
from worker.engine.components import current


def slow_round(rounds: int = 3) -> dict[str, Any]:
    """A run whose every round takes minutes on one core (100 clients × 200 steps of a
    wide MLP on the bundled digits), and starts in a second."""
    return {
        "rounds": rounds,
        "device": "cpu",
        "data": {"dataset": "digits", "n_clients": 100},
        "model": {"name": "mlp", "mlp": {"hidden": 2000}},
        "algorithm": {"name": "fedavg", "participation": 100},
        "client": {"local_steps": 200, "batch_size": 64},
    }


def run_processes(run_id: int) -> list[int]:
    """Pids of the processes executing the run (see `worker.child.process_name`)."""
    name = process_name(run_id)
    pids = []
    for comm in Path("/proc").glob("[0-9]*/comm"):
        try:
            if comm.read_text().strip() == name:
                pids.append(int(comm.parent.name))
        except OSError:  # the process ended meanwhile
            continue
    return pids


def test_cancel_takes_effect_within_the_round_in_progress(client: TestClient) -> None:
    run = submit(client, slow_round())
    eventually(lambda: run_processes(run["id"]), "the run's process")
    assert client.post(f"/api/runs/{run['id']}/cancel").status_code == 200
    done = wait_final(client, run["id"], timeout=30)  # the round alone takes minutes
    assert (done["status"], done["rounds_done"]) == ("cancelled", 0)
    eventually(lambda: not run_processes(run["id"]), "the run's process to end")


def test_a_running_run_can_be_deleted(client: TestClient) -> None:
    run = submit(client, slow_round())
    eventually(lambda: run_processes(run["id"]), "the run's process")
    assert client.delete(f"/api/runs/{run['id']}").status_code == 204
    assert client.get(f"/api/runs/{run['id']}").status_code == 404
    eventually(lambda: not run_processes(run["id"]), "the run's process to end", timeout=30)


def test_runs_execute_side_by_side(client: TestClient) -> None:
    long = submit(client, slow_round())
    quick = submit(client, example1(50))
    assert wait_final(client, quick["id"])["status"] == "succeeded"
    assert client.get(f"/api/runs/{long['id']}").json()["status"] == "running"
    client.post(f"/api/runs/{long['id']}/cancel")
    assert wait_final(client, long["id"], timeout=30)["status"] == "cancelled"


@pytest.fixture(scope="module")
def capped(db_url: str) -> Iterator[TestClient]:
    """A server whose runs may use 300 MB beyond their process's start."""
    with TestClient(create_app(embedded_settings(db_url, max_run_memory_mb=300))) as c:
        yield c


def queue_directly(client: TestClient, config: dict[str, Any]) -> int:
    """Queue a run past the API's admission check, as a config whose estimate was too
    low would be."""
    with client.app.state.sessions.begin() as session:  # type: ignore[attr-defined]
        run = new_run(config, queue="cpu")
        session.add(run)
        session.flush()
        run_id = run.id
    client.app.state.dispatcher.submit(run_id, "cpu")  # type: ignore[attr-defined]
    return run_id


def resident_mb() -> float:
    with open("/proc/self/status") as status:
        line = next(x for x in status if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def test_a_run_past_its_memory_cap_fails_and_the_server_stays(capped: TestClient) -> None:
    before = resident_mb()
    config = {
        "rounds": 5,
        "device": "cpu",
        "data": {"dataset": "synthetic_clustered", "synthetic_clustered": {"dimension": 2_000_000}},
    }
    run_id = queue_directly(
        capped, run_config_for(current()).model_validate(config).model_dump(mode="json")
    )
    done = wait_final(capped, run_id)
    assert done["status"] == "failed"
    assert "out of memory" in done["error"] and "FEDWATCH_MAX_RUN_MEMORY_MB" in done["error"]
    assert "300 MB" in done["error"]
    assert resident_mb() < before + 100  # the gigabytes were the run's process's
    ok = submit(capped, example1(20))
    assert wait_final(capped, ok["id"])["status"] == "succeeded"


def test_a_run_whose_process_crashes_twice_is_held(client: TestClient) -> None:
    run = submit(client, slow_round())
    first = eventually(lambda: run_processes(run["id"]), "the run's process")
    os.kill(first[0], signal.SIGKILL)
    second = eventually(
        lambda: [p for p in run_processes(run["id"]) if p not in first], "the run to resume"
    )
    assert client.get(f"/api/runs/{run['id']}").json()["status"] == "running"
    os.kill(second[0], signal.SIGKILL)
    held = wait_final(client, run["id"], timeout=30)
    assert held["status"] == "failed"
    assert "crashed 2 times" in held["error"] and "SIGKILL" in held["error"]
    assert client.post(f"/api/runs/{run['id']}/resume").status_code == 200
    eventually(lambda: run_processes(run["id"]), "the resumed run's process")
    client.post(f"/api/runs/{run['id']}/cancel")
    assert wait_final(client, run["id"], timeout=30)["status"] == "cancelled"
