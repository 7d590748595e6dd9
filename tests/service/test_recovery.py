"""Recovery of runs whose executor was killed: the workers' sweep and the embedded restart."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session, sessionmaker

from db.models import Run, utcnow
from db.runs import claim_run, new_run
from db.session import make_engine, make_sessionmaker
from tests.api.helpers import example1, submit, wait_final, wait_rounds
from tests.eventually import eventually
from tests.service.conftest import StartWorker
from tests.service.servers import free_port, serve
from tests.service.test_worker import database_counts, reference, stored_rows
from worker.sweep import sweep

pytestmark = pytest.mark.service

# Redis would redeliver the killed worker's message only after an hour.
NO_REDELIVERY = {
    "FEDWATCH_SOFT_TIME_LIMIT_S": "3000",
    "FEDWATCH_TIME_LIMIT_S": "3300",
    "FEDWATCH_VISIBILITY_TIMEOUT_S": "3600",
}


ROUNDS, KILL_AFTER = 2000, 700


@pytest.fixture(scope="module")
def long_run() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A config checkpointed every 100 rounds and its uninterrupted per-round scalars."""
    config = example1(ROUNDS, algorithm__name="fedavg", eval__checkpoint_every=100)
    return config, reference(config)


@pytest.fixture
def sessions(pg_url: str) -> Iterator[sessionmaker[Session]]:
    """Sessions on the module's database; the runs added are deleted afterwards, or
    the workers of later tests would sweep them."""
    engine = make_engine(pg_url)
    sessions = make_sessionmaker(engine)
    with sessions() as session:
        before = session.scalar(select(func.max(Run.id))) or 0
    yield sessions
    with sessions.begin() as session:
        session.execute(delete(Run).where(Run.id > before))
    engine.dispose()


def add_run(
    sessions: sessionmaker[Session], status: str, silent_s: float | None, queue: str = "cpu"
) -> int:
    """A run in `status` whose last heartbeat was `silent_s` seconds ago."""
    with sessions.begin() as session:
        run = new_run(example1(10), queue=queue)
        run.status = status
        if silent_s is not None:
            run.heartbeat_at = utcnow() - timedelta(seconds=silent_s)
        session.add(run)
        session.flush()
        return run.id


def statuses(sessions: sessionmaker[Session], ids: list[int]) -> list[str]:
    with sessions() as session:
        return [session.get_one(Run, run_id).status for run_id in ids]


def test_sweep_requeues_each_stale_run_once(sessions: sessionmaker[Session]) -> None:
    stale_gpu = add_run(sessions, "running", 30, queue="gpu")
    live = add_run(sessions, "running", 5)
    waiting = add_run(sessions, "queued", None)
    finished = add_run(sessions, "succeeded", 30)
    stale_cpu = add_run(sessions, "running", 11)
    sent: list[tuple[int, str]] = []

    def submit(run_id: int, queue: str) -> None:
        sent.append((run_id, queue))

    assert sweep(sessions, 10, submit) == [stale_gpu, stale_cpu]
    assert sent == [(stale_gpu, "gpu"), (stale_cpu, "cpu")]
    ids = [stale_gpu, live, waiting, finished, stale_cpu]
    assert statuses(sessions, ids) == ["queued", "running", "queued", "succeeded", "queued"]
    assert sweep(sessions, 10, submit) == []
    assert len(sent) == 2
    with sessions.begin() as session:
        assert claim_run(session, stale_gpu, "next", 10) is not None


def test_failed_send_leaves_the_run_for_the_next_sweep(sessions: sessionmaker[Session]) -> None:
    stale = add_run(sessions, "running", 30)

    def broker_down(run_id: int, queue: str) -> None:
        raise ConnectionError("broker unreachable")

    with pytest.raises(ConnectionError):
        sweep(sessions, 10, broker_down)
    assert statuses(sessions, [stale]) == ["running"]
    assert sweep(sessions, 10, lambda run_id, queue: None) == [stale]


def test_killed_worker_is_resumed_by_the_sweep(
    api: TestClient,
    start_worker: StartWorker,
    pg_url: str,
    broker_url: str,
    long_run: tuple[dict[str, Any], list[dict[str, Any]]],
) -> None:
    config, expected = long_run
    doomed = start_worker("doomed", **NO_REDELIVERY)
    run = submit(api, config)
    wait_rounds(api, run["id"], KILL_AFTER, timeout=120)
    os.killpg(doomed.process.pid, signal.SIGKILL)
    doomed.process.wait()
    killed_at = api.get(f"/api/runs/{run['id']}").json()
    assert killed_at["status"] == "running" and killed_at["rounds_done"] < ROUNDS
    sweeper = start_worker(
        "sweeper", **NO_REDELIVERY, FEDWATCH_LEASE_S="5", FEDWATCH_SWEEP_INTERVAL_S="0.5"
    )
    done = wait_final(api, run["id"], timeout=60)
    assert done["status"] == "succeeded", done["error"]
    assert done["worker"] == "sweeper@test"
    log = sweeper.output()
    assert f"run {run['id']}: heartbeat older than 5 s, re-enqueued on cpu" in log, log
    resumed = re.search(rf"run {run['id']} starts at round (\d+)", log)
    assert resumed is not None, log
    assert KILL_AFTER - 100 <= int(resumed.group(1)) <= killed_at["rounds_done"]
    assert int(resumed.group(1)) % 100 == 0
    # The killed worker's delivery stays unacknowledged (Redis did not redeliver it);
    # the sweeper acknowledges its own one just after the run's final status.
    unacked = redis.Redis.from_url(broker_url)
    eventually(
        lambda: unacked.hlen("unacked") == 1,
        lambda: f"one delivery unacknowledged, not {unacked.hlen('unacked')}",
        10,
        every=0.1,
    )
    assert database_counts(pg_url, run["id"]) == (ROUNDS, ROUNDS, ROUNDS)
    assert stored_rows(api, run["id"]) == expected


def test_killed_embedded_server_resumes_on_start(
    api: TestClient,
    pg_url: str,
    tmp_path: Path,
    long_run: tuple[dict[str, Any], list[dict[str, Any]]],
) -> None:
    config, expected = long_run
    port, log = free_port(), tmp_path / "serve.log"
    base = f"http://127.0.0.1:{port}/api/runs"
    first = serve(pg_url, port, log)
    servers = [first]
    try:
        created: dict[str, Any] = httpx.post(base, json={"config": config}).json()
        wait_rounds(api, created["id"], KILL_AFTER, timeout=120)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        killed_at = api.get(f"/api/runs/{created['id']}").json()
        assert killed_at["status"] == "running" and killed_at["rounds_done"] < ROUNDS
        servers.append(serve(pg_url, port, log))
        done = wait_final(api, created["id"], timeout=60)
    finally:
        for process in servers:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(20)
    assert done["status"] == "succeeded", done["error"]
    assert done["worker"] == "embedded"
    assert database_counts(pg_url, created["id"]) == (ROUNDS, ROUNDS, ROUNDS)
    assert stored_rows(api, created["id"]) == expected
