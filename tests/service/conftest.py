"""Real services: a Postgres database, a Redis database and `fedwatch worker` processes."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pytest
import redis
from fastapi.testclient import TestClient

from api.main import create_app
from db.migrate import upgrade
from tests.api.helpers import embedded_settings
from tests.db.databases import REDIS_URL, postgres_database, unavailable
from tests.eventually import eventually

pytestmark = pytest.mark.service

# Time limits short enough that a killed worker's run is redelivered within the test.
WORKER_ENV = {
    "FEDWATCH_SOFT_TIME_LIMIT_S": "20",
    "FEDWATCH_TIME_LIMIT_S": "25",
    "FEDWATCH_VISIBILITY_TIMEOUT_S": "30",
    "FEDWATCH_RESTORE_INTERVAL_S": "1",
    "FEDWATCH_LEASE_S": "10",
    "FEDWATCH_FLUSH_SECONDS": "0.1",
    "FEDWATCH_CHECKPOINT_SECONDS": "0",  # every checkpoint: resumes land on exact rounds
}
# Test runs sharing a Redis server at the same time need databases of their own.
TEST_REDIS_DB = int(os.environ.get("FEDWATCH_TEST_REDIS_DB", "13"))


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    with postgres_database() as url:
        upgrade(url)
        yield url


@pytest.fixture(scope="module")
def broker_url() -> str:
    """A Redis database of its own, emptied first."""
    url = REDIS_URL.rsplit("/", 1)[0] + f"/{TEST_REDIS_DB}"
    client = redis.Redis.from_url(url, socket_timeout=2)
    try:
        client.flushdb()
    except redis.RedisError as err:
        unavailable(f"Redis unreachable at {url}: {err}")
    return url


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")


class StartWorker(Protocol):
    def __call__(self, name: str, **overrides: str) -> Worker: ...


@pytest.fixture
def start_worker(
    pg_url: str, broker_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StartWorker]:
    """Start `fedwatch worker` processes (own process groups), ready; stopped after the test.

    `overrides` replace values of `WORKER_ENV` (e.g. `FEDWATCH_LEASE_S="2"`).
    """
    fedwatch = shutil.which("fedwatch", path=str(Path(sys.executable).parent))
    assert fedwatch is not None
    logs = tmp_path_factory.mktemp("workers")
    started: list[subprocess.Popen[bytes]] = []

    def start(name: str, **overrides: str) -> Worker:
        env = {
            **os.environ,
            **WORKER_ENV,
            **overrides,
            "FEDWATCH_DATABASE_URL": pg_url,
            "FEDWATCH_BROKER_URL": broker_url,
        }
        log = logs / f"{name}.log"
        process = subprocess.Popen(
            [fedwatch, "worker", "--queues", "gpu,cpu", "--name", f"{name}@test"],
            env=env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        started.append(process)

        def ready() -> bool:
            assert process.poll() is None, log.read_text()
            return b" ready." in log.read_bytes()

        eventually(ready, lambda: f"worker {name} ready: {log.read_text()}", every=0.2)
        return Worker(process, log)

    yield start
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture(scope="module")
def api(pg_url: str, broker_url: str) -> Iterator[TestClient]:
    settings = embedded_settings(pg_url, broker_url=broker_url)
    with TestClient(create_app(settings)) as client:
        yield client
