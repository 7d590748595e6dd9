"""A full disk under the database: every write is a 507 that says so, with nothing
changed, reads go on, and `/healthz` reports the free space."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from db.migrate import upgrade
from tests.api.helpers import embedded_settings, example1
from tests.db.full_disk import FullDisk

LONG_NOTES = "n" * 20_000  # a run row with these needs pages of its own
AFTER_FULL = "nothing was changed; free space on the server, then send this again"


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'full.sqlite3'}"
    upgrade(url)
    return url


@pytest.fixture
def served(sqlite_url: str) -> Iterator[tuple[TestClient, FullDisk]]:
    app = create_app(embedded_settings(sqlite_url))
    with TestClient(app) as client:
        yield client, FullDisk(app.state.sessions.kw["bind"])


def test_writes_on_a_full_disk_are_507_and_change_nothing(
    served: tuple[TestClient, FullDisk],
) -> None:
    client, disk = served
    external = {"source": "external", "name": "e", "n_clients": 100, "notes": LONG_NOTES}
    run = client.post("/api/runs", json=external).json()
    rounds = [
        {"round": t, "metrics": {"test_acc": 0.5}, "available": list(range(100))}
        for t in range(500)
    ]
    before = client.get("/api/runs").json()["count"]
    disk.full = True
    # Before: a bare 500 for each.
    writes = [
        client.post("/api/runs", json={"config": example1(3), "notes": LONG_NOTES}),
        client.post("/api/runs", json=external),
        client.post(f"/api/runs/{run['id']}/rounds", json={"rounds": rounds}),
    ]
    for response in writes:
        assert response.status_code == 507, response.text
        detail = response.json()["detail"]
        assert detail.startswith("the database's disk is full (OperationalError: database or")
        assert detail.endswith(AFTER_FULL)
    assert client.get("/api/runs").json()["count"] == before  # reads go on
    disk.full = False
    stored = client.post(f"/api/runs/{run['id']}/rounds", json={"rounds": rounds})
    assert stored.json()["stored"] == 500
    assert client.get("/api/runs").json()["count"] == before


def test_health_reports_the_free_space_of_the_databases_disk(sqlite_url: str) -> None:
    folder = Path(sqlite_url.removeprefix("sqlite:///")).parent
    with TestClient(create_app(embedded_settings(sqlite_url))) as client:
        health = client.get("/healthz").json()
    free = shutil.disk_usage(folder).free / 2**20
    assert health["status"] == "ok" and health["database"] == "ok"
    assert health["disk_free_mb"] == pytest.approx(free, abs=64)
    nearly_full = embedded_settings(sqlite_url, min_free_disk_mb=free + 2**20)
    with TestClient(create_app(nearly_full)) as client:
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"].startswith("error: ")
    assert response.json()["database"].endswith(" MiB free on its disk")
