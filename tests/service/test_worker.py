"""Runs executed by real `fedwatch worker` processes on Redis and Postgres."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from db.metric_values import full_series
from db.models import RoundClients
from db.session import make_engine, make_sessionmaker
from db.settings import Settings
from tests.api.helpers import example1, reference, submit, wait_final, wait_rounds
from tests.api.test_data_root import mnist
from tests.api.test_kept_datasets import MAPPED
from tests.engine.test_data import write_tiny_mnist
from tests.service.conftest import StartWorker
from worker.celery_app import EXECUTE_RUN, make_celery

pytestmark = pytest.mark.service


def stored_rows(api: httpx.Client, run_id: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    while True:
        after = rows[-1]["round"] if rows else -1
        page = api.get(f"/api/runs/{run_id}/rounds", params={"after": after, "limit": 5000})
        if not page.json()["data"]:
            return [{k: v for k, v in r.items() if k != "wall_s"} for r in rows]
        rows += page.json()["data"]


def database_counts(pg_url: str, run_id: int) -> tuple[int, int, int]:
    engine = make_engine(pg_url)
    with make_sessionmaker(engine)() as session:
        clients = session.scalar(
            select(func.count()).select_from(RoundClients).where(RoundClients.run_id == run_id)
        )
        distinct = session.scalar(
            select(func.count(func.distinct(RoundClients.round))).where(
                RoundClients.run_id == run_id
            )
        )
        params = len(full_series(session, run_id, "param")[0])
    engine.dispose()
    return clients or 0, distinct or 0, params


def test_run_completes_on_a_worker(api: TestClient, start_worker: StartWorker, pg_url: str) -> None:
    start_worker("first")
    config = example1(800, algorithm__name="fedavg")
    run = submit(api, config)
    with api.stream("GET", f"/api/runs/{run['id']}/events") as response:
        events = "".join(response.iter_text())
    streamed = [int(line[4:]) for line in events.splitlines() if line.startswith("id: ")]
    assert streamed == list(range(800))
    done = wait_final(api, run["id"])
    assert done["status"] == "succeeded", done["error"]
    assert done["worker"] == "first@test"
    assert database_counts(pg_url, run["id"]) == (800, 800, 800)
    assert stored_rows(api, run["id"]) == reference(config)


def test_killed_worker_is_resumed_by_another(
    api: TestClient, start_worker: StartWorker, pg_url: str
) -> None:
    first = start_worker("doomed")
    config = example1(4000, algorithm__name="fedavg", eval__checkpoint_every=100)
    run = submit(api, config)
    wait_rounds(api, run["id"], 1500)
    os.killpg(first.process.pid, signal.SIGKILL)
    first.process.wait()
    killed_at = api.get(f"/api/runs/{run['id']}").json()
    assert killed_at["status"] == "running" and killed_at["rounds_done"] < 4000
    rescuer = start_worker("rescuer")
    done = wait_final(api, run["id"], timeout=120)
    assert done["status"] == "succeeded", done["error"]
    assert done["worker"] == "rescuer@test"
    resumed = re.search(rf"run {run['id']} starts at round (\d+)", rescuer.output())
    assert resumed is not None, rescuer.output()
    assert 1400 <= int(resumed.group(1)) <= killed_at["rounds_done"]
    assert int(resumed.group(1)) % 100 == 0
    assert database_counts(pg_url, run["id"]) == (4000, 4000, 4000)
    assert stored_rows(api, run["id"]) == reference(config)


def test_cancel_stops_a_worker_run(api: TestClient, start_worker: StartWorker) -> None:
    start_worker("canceller")
    run = submit(api, example1(1_000_000))
    wait_rounds(api, run["id"], 50)
    assert api.post(f"/api/runs/{run['id']}/cancel").status_code == 200
    done = wait_final(api, run["id"], timeout=30)
    assert done["status"] == "cancelled"
    assert done["rounds_done"] < 1_000_000


def test_cancelled_run_resumes_on_a_worker_from_its_checkpoint(
    api: TestClient, start_worker: StartWorker, pg_url: str
) -> None:
    worker = start_worker("resumer")
    config = example1(4000, algorithm__name="fedavg", eval__checkpoint_every=100)
    run = submit(api, config)
    wait_rounds(api, run["id"], 1000)
    assert api.post(f"/api/runs/{run['id']}/cancel").status_code == 200
    cancelled = wait_final(api, run["id"], timeout=30)
    assert cancelled["status"] == "cancelled" and cancelled["rounds_done"] < 4000
    assert api.post(f"/api/runs/{run['id']}/resume").status_code == 200
    done = wait_final(api, run["id"], timeout=120)
    assert done["status"] == "succeeded", done["error"]
    starts = re.findall(rf"run {run['id']} starts at round (\d+)", worker.output())
    assert starts[0] == "0" and 1000 <= int(starts[1]) <= cancelled["rounds_done"], starts
    assert database_counts(pg_url, run["id"]) == (4000, 4000, 4000)
    assert stored_rows(api, run["id"]) == reference(config)


def test_a_worker_keeps_the_datasets_of_its_runs_until_it_stops(
    api: TestClient, start_worker: StartWorker, tmp_path: Path
) -> None:
    write_tiny_mnist(tmp_path / "data", 60, 20)
    shared = tmp_path / "shm"
    shared.mkdir()
    env = {"FEDWATCH_DATA_ROOT": str(tmp_path / "data"), "FEDWATCH_KEEP_DATASETS_DIR": str(shared)}
    worker = start_worker("keeper", **env)
    runs = [wait_final(api, submit(api, mnist("data"))["id"]) for _ in range(2)]
    assert [run["status"] for run in runs] == ["succeeded", "succeeded"]
    (folder,) = shared.iterdir()
    assert [p.name[:6] for p in folder.iterdir() if p.is_dir()] == ["mnist-"]

    os.killpg(worker.process.pid, signal.SIGTERM)
    worker.process.wait(20)
    assert list(shared.iterdir()) == []
    assert worker.output().count(MAPPED) == 1  # the second run's, relayed by the end


def test_redelivered_message_does_nothing(
    api: TestClient, start_worker: StartWorker, broker_url: str
) -> None:
    start_worker("again")
    first = wait_final(api, submit(api, example1(50))["id"])
    app = make_celery(Settings(broker_url=broker_url))
    app.send_task(EXECUTE_RUN, kwargs={"run_id": first["id"]}, queue="gpu")
    # One worker, one process, FIFO queue: the duplicate is handled before this run.
    later = wait_final(api, submit(api, example1(50))["id"])
    assert later["status"] == "succeeded"
    assert api.get(f"/api/runs/{first['id']}").json() == {**first}
    app.close()


def test_runs_are_routed_by_device(pg_url: str) -> None:
    isolated = "redis://127.0.0.1:6379/14"
    client = redis.Redis.from_url(isolated)
    client.flushdb()
    settings = Settings(database_url=pg_url, broker_url=isolated)
    from api.main import create_app

    with TestClient(create_app(settings)) as c:
        submit(c, example1(5))  # device cpu
        gpu = example1(5)
        gpu["device"] = "auto"
        submit(c, gpu)
        submit(c, {**gpu, "device": "cuda"})
    assert (client.llen("cpu"), client.llen("gpu")) == (1, 2)
    client.flushdb()
