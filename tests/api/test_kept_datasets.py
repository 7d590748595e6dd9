"""A server keeps the datasets its runs load in memory across runs: the first run
reads and keeps, later runs map what it kept, and the server removes it when it stops."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from tests.api.helpers import embedded_settings, submit, wait_final
from tests.api.test_data_root import mnist
from tests.engine.test_data import write_tiny_mnist

MAPPED = "mapped from the datasets kept in memory"


def test_a_servers_runs_map_the_datasets_it_keeps(
    db_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_tiny_mnist(tmp_path / "data", 60, 20)
    shared = tmp_path / "shm"
    shared.mkdir()
    settings = embedded_settings(
        db_url, data_root=str(tmp_path / "data"), keep_datasets_dir=str(shared)
    )
    caplog.set_level(logging.INFO, logger="worker.engine.data.kept_pools")

    with TestClient(create_app(settings)) as client:
        (folder,) = shared.iterdir()
        first = wait_final(client, submit(client, mnist("data"))["id"])
        kept = [p.name for p in folder.iterdir() if p.is_dir()]
        assert MAPPED not in caplog.text
        second = wait_final(client, submit(client, mnist("data"))["id"])

    assert (first["status"], second["status"]) == ("succeeded", "succeeded")
    assert len(kept) == 1 and kept[0].startswith("mnist-")
    assert f"{kept[0]}: {MAPPED}" in caplog.text
    assert second["summary"]["final_test_acc"] == first["summary"]["final_test_acc"]
    assert list(shared.iterdir()) == []  # gone with the server


def test_a_server_keeps_none_with_a_budget_of_zero(db_url: str, tmp_path: Path) -> None:
    shared = tmp_path / "shm"
    shared.mkdir()
    settings = embedded_settings(db_url, keep_datasets_mb=0, keep_datasets_dir=str(shared))
    with TestClient(create_app(settings)):
        assert list(shared.iterdir()) == []
