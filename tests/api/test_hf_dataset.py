"""The `hf` dataset through the API: its partition previewed from a dataset under the
data root, and a missing column a 422 naming the key on both routes, with nothing created."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

datasets = pytest.importorskip("datasets", reason="the hf extra is not installed")


@pytest.fixture(scope="module")
def tiny(api_data_root: Path) -> str:
    """A save_to_disk dataset of 30 train and 6 test rows, 3 classes, under the data root."""
    split = {"x": [[float(i), 1.0] for i in range(30)], "label": [i % 3 for i in range(30)]}
    train, test = (
        datasets.Dataset.from_dict(split),
        datasets.Dataset.from_dict(split).select(range(6)),
    )
    datasets.DatasetDict({"train": train, "test": test}).save_to_disk(str(api_data_root / "hf"))
    return "hf"


def config(path: str, **hf: Any) -> dict[str, Any]:
    data = {"dataset": "hf", "n_clients": 3, "seed": 1, "hf": {"path": path, "features": "x", **hf}}
    return {"rounds": 1, "algorithm": {"participation": 2}, "model": {"name": "mlp"}, "data": data}


def test_the_preview_shows_the_flower_split(client: TestClient, tiny: str) -> None:
    got = client.post(
        "/api/partition",
        json={"config": config(tiny, partitioner="pathological", classes_per_client=1)},
    )

    assert got.status_code == 200, got.text
    body = got.json()
    assert body["sizes"] == [10, 10, 10] and body["n_classes"] == 3
    assert body["counts"] == [[10, 0, 0], [0, 10, 0], [0, 0, 10]]


def test_a_missing_column_is_a_422_naming_the_key_on_both_routes(
    client: TestClient, tiny: str
) -> None:
    before = client.get("/api/runs").json()["count"]
    for path in ("/api/runs", "/api/partition"):
        got = client.post(path, json={"config": config(tiny, label="digit")})

        assert got.status_code == 422, got.text
        [error] = got.json()["detail"]
        assert error["loc"] == ["body", "config", "data", "hf", "label"]
        assert "'digit'" in error["msg"] and "'label'" in error["msg"]
    assert client.get("/api/runs").json()["count"] == before


def test_a_hub_id_without_download_is_a_422_at_the_path(client: TestClient, tiny: str) -> None:
    got = client.post("/api/runs", json={"config": config("uoft-cs/cifar10")})

    assert got.status_code == 422, got.text
    [error] = got.json()["detail"]
    assert error["loc"] == ["body", "config", "data", "hf", "path"]
    assert "data.download=true" in error["msg"]
