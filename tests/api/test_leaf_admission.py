"""A LEAF folder with a split missing is refused at submission, naming `data.root`, by
the API (422, nothing created) and the CLI (an error, nothing written); so is a user
listed without data, found by a scan of the files' bytes (`leaf.check_users`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from fedwatch.command import main
from tests.api.helpers import embedded_settings, leaf_roots, submit, wait_final
from tests.engine.test_leaf import tiny_femnist


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`whole/`: tiny FEMNIST; `half/`: its train split only; `ghost/`: a train user
    listed in `users` without data."""
    return leaf_roots(tmp_path_factory.mktemp("leaf"), "femnist", tiny_femnist, "a.json")


@pytest.fixture(scope="module")
def served(db_url: str, data_root: Path) -> Iterator[TestClient]:
    # the estimate assumes FEMNIST's full size (`DatasetFacts`), past the default limit
    settings = embedded_settings(db_url, data_root=str(data_root), max_run_memory_mb=16384)
    with TestClient(create_app(settings)) as c:
        yield c


def femnist(root: str, n_clients: int = 2) -> dict[str, Any]:
    return {
        "rounds": 2,
        "device": "cpu",
        "data": {"dataset": "femnist", "n_clients": n_clients, "root": root},
        "model": {"name": "leaf_cnn"},
        "algorithm": {"participation": 2},
        "client": {"local_steps": 1, "batch_size": 2},
    }


def test_a_missing_split_is_refused_at_data_root_and_nothing_is_created(
    served: TestClient,
) -> None:
    before = served.get("/api/runs").json()["count"]

    response = served.post("/api/runs", json={"config": femnist("half")})

    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "config", "data", "root"]
    assert error["msg"].startswith("femnist's test split is missing")
    assert served.get("/api/runs").json()["count"] == before


def test_whole_splits_are_admitted_and_run(served: TestClient) -> None:
    done = wait_final(served, submit(served, femnist("whole"))["id"])

    assert done["status"] == "succeeded", done.get("error")


def test_a_user_without_data_is_refused_and_nothing_is_created(served: TestClient) -> None:
    before = served.get("/api/runs").json()["count"]

    response = served.post("/api/runs", json={"config": femnist("ghost", n_clients=3)})

    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "config", "data", "root"]
    assert error["msg"] == "user_data.nobody in a.json: no x and y for a user listed in `users`"
    assert served.get("/api/runs").json()["count"] == before


def test_the_cli_refuses_a_missing_split_before_writing_anything(
    data_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FEDWATCH_DATA_ROOT", str(data_root))
    config = tmp_path / "run.json"
    config.write_text(json.dumps(femnist("half")))
    out = tmp_path / "result.json"

    code = main(["simulate", str(config), "--out", str(out)])

    assert code != 0
    assert "data.root: femnist's test split is missing" in capsys.readouterr().err
    assert not out.exists()
