"""LEAF's Sent140 at submission, as FEMNIST: a split missing or a user listed without
data is refused by the API (422 at `data.root`, nothing created), the dataset endpoint
lists the missing split, and whole splits are admitted and run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from tests.api.helpers import embedded_settings, leaf_roots, submit, wait_final
from tests.engine.test_leaf_sent140 import tiny_sent140


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`whole/`: tiny Sent140; `half/`: its train split only; `ghost/`: a train user
    listed in `users` without data."""
    return leaf_roots(tmp_path_factory.mktemp("sent140"), "sent140", tiny_sent140, "b.json")


@pytest.fixture(scope="module")
def served(db_url: str, data_root: Path) -> Iterator[TestClient]:
    with TestClient(create_app(embedded_settings(db_url, data_root=str(data_root)))) as c:
        yield c


def sent140(root: str, n_clients: int = 2) -> dict[str, Any]:
    return {
        "rounds": 2,
        "device": "cpu",
        "data": {"dataset": "sent140", "n_clients": n_clients, "root": root},
        "model": {"name": "sent140_lstm", "sent140_lstm": {"hidden": 8, "dense": 8}},
        "algorithm": {"participation": 2},
        "client": {"local_steps": 1, "batch_size": 2},
    }


@pytest.mark.parametrize(
    ("root", "n_clients", "message"),
    [
        ("half", 2, "sent140's test split is missing (no .json files in "),
        ("ghost", 3, "user_data.nobody in b.json: no x and y for a user listed in `users`"),
    ],
)
def test_bad_folders_are_refused_at_data_root_and_nothing_is_created(
    served: TestClient, root: str, n_clients: int, message: str
) -> None:
    before = served.get("/api/runs").json()["count"]

    response = served.post("/api/runs", json={"config": sent140(root, n_clients)})

    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "config", "data", "root"]
    assert error["msg"].startswith(message)
    assert served.get("/api/runs").json()["count"] == before


def test_the_dataset_endpoint_lists_the_missing_split(served: TestClient) -> None:
    half = served.get("/api/datasets/sent140", params={"root": "half"}).json()
    whole = served.get("/api/datasets/sent140", params={"root": "whole"}).json()

    assert (half["present"], half["missing"]) == (False, ["sent140/data/test/*.json"])
    assert "LEAF's preprocessing" in half["advice"]
    assert (whole["present"], whole["missing"], whole["advice"]) == (True, [], None)


def test_whole_splits_are_admitted_and_run(served: TestClient) -> None:
    done = wait_final(served, submit(served, sent140("whole"))["id"])

    assert done["status"] == "succeeded", done.get("error")
    assert done["config"]["data"]["n_clients"] == 2
