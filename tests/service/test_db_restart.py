"""Runs against a Postgres server of the test's own that restarts under them: a blip
shorter than `db_retry_s` costs nothing, a longer one fails the run clearly."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from api.main import create_app
from db.migrate import upgrade
from db.models import utcnow
from db.runs import new_run
from db.session import make_engine, make_sessionmaker
from db.settings import Settings
from tests.api.helpers import (
    embedded_settings,
    example1,
    reference,
    submit,
    wait_final,
    wait_rounds,
)
from tests.db.logs import OnLog
from tests.service.cluster import Cluster, temp_cluster
from tests.service.test_worker import database_counts, stored_rows
from worker.claims import claim_execution
from worker.execute import execute_claimed
from worker.supervise import supervise
from worker.sweep import Sweeper

pytestmark = pytest.mark.service

OUTAGE_S = 3.0  # how long the server stays down: the restart that failed a run took 2.7 s
ROUNDS, STOP_AFTER = 2000, 400  # the run goes on for seconds after the server stops


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with temp_cluster() as cluster:
        upgrade(cluster.url)
        yield cluster


@pytest.fixture(scope="module")
def api(cluster: Cluster) -> Iterator[TestClient]:
    """The embedded service on the cluster, with the default retry limit."""
    settings = embedded_settings(cluster.url, checkpoint_seconds=0)
    assert settings.db_retry_s == 60
    with TestClient(create_app(settings)) as client:
        yield client


@pytest.fixture(autouse=True)
def restarted(cluster: Cluster) -> Iterator[None]:
    """The server runs after each test, also one that failed while it was stopped."""
    yield
    if not cluster.is_running():
        cluster.start()


@pytest.fixture
def sessions(cluster: Cluster) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(cluster.url)
    yield make_sessionmaker(engine)
    engine.dispose()


def add_run(sessions: sessionmaker[Session], config: dict[str, Any], silent_s: float = 0) -> int:
    """A queued run (or, with `silent_s`, a running one silent that long)."""
    with sessions.begin() as session:
        run = new_run(config, queue="cpu")
        if silent_s:
            run.status, run.heartbeat_at = "running", utcnow() - timedelta(seconds=silent_s)
        session.add(run)
        session.flush()
        return run.id


def test_run_survives_a_restart_of_the_database(api: TestClient, cluster: Cluster) -> None:
    config = example1(ROUNDS, algorithm__name="fedavg", eval__checkpoint_every=100)
    run_id = submit(api, config)["id"]
    wait_rounds(api, run_id, STOP_AFTER)
    with OnLog("db.retry", f"run {run_id}: record the rounds before") as retried:
        cluster.stop()
        retried.wait()  # the run met the outage
        time.sleep(OUTAGE_S)  # the outage itself
        cluster.start()
    done = wait_final(api, run_id)
    assert done["status"] == "succeeded", done["error"]
    assert database_counts(cluster.url, run_id) == (ROUNDS, ROUNDS, ROUNDS)
    assert stored_rows(api, run_id) == reference(config)


def test_claim_waits_for_the_database(
    api: TestClient, cluster: Cluster, sessions: sessionmaker[Session]
) -> None:
    config = example1(200, algorithm__name="fedavg")
    run_id = add_run(sessions, config)
    settings = embedded_settings(cluster.url)
    with OnLog("db.retry", f"claim run {run_id}: database unavailable") as retried:
        cluster.stop()
        with ThreadPoolExecutor(1) as pool:
            execution = pool.submit(
                supervise,
                run_id,
                sessions=sessions,
                settings=settings,
                worker="patient",
                threads=1,
                shutdown=threading.Event(),
            )
            retried.wait()  # the claim met the outage
            cluster.start()
            execution.result(timeout=120)
    done = api.get(f"/api/runs/{run_id}").json()
    assert (done["status"], done["worker"]) == ("succeeded", "patient"), done["error"]
    assert stored_rows(api, run_id) == reference(config)


def test_sweep_waits_for_the_database(cluster: Cluster, sessions: sessionmaker[Session]) -> None:
    stale = add_run(sessions, example1(10), silent_s=3600)
    settings = Settings(database_url=cluster.url, lease_s=60, sweep_interval_s=3600)
    submitted: list[int] = []
    sweeper = Sweeper(settings, lambda run_id, queue: submitted.append(run_id))
    with OnLog("db.retry", "sweep for stale runs: database unavailable") as retried:
        cluster.stop()
        sweeper.start()
        retried.wait()
        cluster.start()
        sweeper.stop()  # after the sweep under way, which the stop does not cut short
    assert submitted == [stale]


def test_outage_past_the_retry_limit_fails_the_run(
    api: TestClient, cluster: Cluster, sessions: sessionmaker[Session]
) -> None:
    config = example1(ROUNDS, algorithm__name="fedavg", eval__checkpoint_every=100)
    run_id = add_run(sessions, config)
    settings = embedded_settings(cluster.url, checkpoint_seconds=0, db_retry_s=1)
    # The server comes back once the recorder gave up, before the run's outcome is stored.
    restart = OnLog("db.retry", "past the retry limit", cluster.start)
    claimed = claim_execution(sessions, run_id, "short", settings)
    assert claimed is not None
    # The run's body in this process, so the log hook above runs inside the recorder.
    with restart, ThreadPoolExecutor(1) as pool:
        execution = pool.submit(
            execute_claimed,
            run_id,
            claimed.claim,
            sessions=sessions,
            settings=settings,
            stop=threading.Event(),
            cancel=threading.Event(),
        )
        wait_rounds(api, run_id, STOP_AFTER)
        cluster.stop()
        execution.result(timeout=120)
    failed = api.get(f"/api/runs/{run_id}").json()
    assert failed["status"] == "failed"
    assert failed["error"].startswith(f"DatabaseUnavailable: run {run_id}: record the rounds")
    assert "past the retry limit of 1 s; last error: OperationalError" in failed["error"]
    kept = stored_rows(api, run_id)
    assert STOP_AFTER <= len(kept) < ROUNDS
    assert kept == reference(config)[: len(kept)]
    # The run resumes from its checkpoint; nothing was lost or written twice.
    assert api.post(f"/api/runs/{run_id}/resume").status_code == 200
    done = wait_final(api, run_id)
    assert done["status"] == "succeeded", done["error"]
    assert database_counts(cluster.url, run_id) == (ROUNDS, ROUNDS, ROUNDS)
    assert stored_rows(api, run_id) == reference(config)


def test_the_api_answers_503_while_the_database_is_down_and_logs_where_it_was(
    api: TestClient, cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    run_id = submit(api, example1(3))["id"]
    wait_final(api, run_id)
    cluster.stop()
    # Before: a bare 500 for each (`/healthz` said 503 already); then a 503 whose detail
    # quoted the driver: "connection to server at 127.0.0.1, port 55433 failed".
    requests = [
        ("GET", "/api/runs"),
        ("GET", f"/api/runs/{run_id}/metrics"),
        ("POST", f"/api/runs/{run_id}/cancel"),
        ("DELETE", f"/api/runs/{run_id}"),
    ]
    with caplog.at_level("WARNING", logger="api.errors"):
        for method, path in requests:
            response = api.request(method, path)
            assert response.status_code == 503, (path, response.text)
            assert response.headers["Retry-After"] == "5"
            assert response.json()["detail"] == (
                "the database is unreachable just now: nothing was changed; try again later"
            )
            assert str(cluster.port) not in response.text
            assert "127.0.0.1" not in response.text
        health = api.get("/healthz")
    assert health.status_code == 503
    assert str(cluster.port) not in health.text
    logged = [r.getMessage() for r in caplog.records if r.name == "api.errors"]
    assert len(logged) == len(requests)
    for (method, path), message in zip(requests, logged, strict=True):
        assert message.startswith(f"{method} {path}: the database does not answer (")
        assert f"port {cluster.port}" in message
    cluster.start()
    assert api.get(f"/api/runs/{run_id}").json()["status"] == "succeeded"


def test_a_run_whose_outcome_cannot_be_stored_fails_once_the_database_is_back(
    api: TestClient, cluster: Cluster, sessions: sessionmaker[Session]
) -> None:
    config = example1(ROUNDS, algorithm__name="fedavg", eval__checkpoint_every=100)
    run_id = add_run(sessions, config)
    settings = embedded_settings(cluster.url, checkpoint_seconds=0, db_retry_s=1)
    # The server stays down past the run's retries and its outcome's; it comes back once
    # the supervisor, which stores the outcome for the run's ended process, waits.
    restart = OnLog("worker.supervise", "trying again", cluster.start)
    with restart, ThreadPoolExecutor(1) as pool:
        execution = pool.submit(
            supervise,
            run_id,
            sessions=sessions,
            settings=settings,
            worker="embedded",
            threads=1,
            shutdown=threading.Event(),
        )
        wait_rounds(api, run_id, STOP_AFTER)
        cluster.stop()
        assert execution.result(timeout=300) is None
    # Before: the supervisor's own write failed too, and the run stayed running for ever,
    # with no process.
    failed = api.get(f"/api/runs/{run_id}").json()
    assert failed["status"] == "failed"
    assert failed["error"].startswith(
        f"its outcome could not be stored: store the outcome of run {run_id}: the database "
        "stayed unavailable"
    )
    assert "past the retry limit of 1 s; last error: OperationalError" in failed["error"]
    assert api.post(f"/api/runs/{run_id}/resume").status_code == 200
    assert wait_final(api, run_id)["status"] == "succeeded"
