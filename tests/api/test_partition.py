"""A run's partition and a config's preview: sizes and clients × classes, from the engine;
impossible partitions are 422s naming the key, with nothing created."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.helpers import example1, submit, wait_final
from worker.engine import build_config
from worker.engine.data import load_data
from worker.engine.data.view import partition_view

DIGITS = {"dataset": "digits", "n_clients": 20, "partition": "pathological"}


def digits(**data: Any) -> dict[str, Any]:
    return {"rounds": 2, "data": {**DIGITS, **data}}


def runs(client: TestClient) -> int:
    count: int = client.get("/api/runs").json()["count"]
    return count


def test_the_preview_is_the_engines_partition(client: TestClient) -> None:
    config = digits(pathological={"classes_per_client": 2}, seed=3)

    got = client.post("/api/partition", json={"config": config})

    assert got.status_code == 200, got.text
    built = build_config(config)
    assert got.json() == vars(partition_view(load_data(built.data, built.seed)))
    body = got.json()
    assert all(sum(1 for c in row if c) == 2 for row in body["counts"])
    assert [sum(row) for row in body["counts"]] == body["sizes"]
    assert body["total"] == sum(body["sizes"]) and not body["sampled"]


def test_the_preview_samples_clients_above_max_clients(client: TestClient) -> None:
    got = client.post("/api/partition?max_clients=4", json={"config": digits()}).json()

    assert (got["clients"], got["sampled"], got["n_clients"]) == ([0, 6, 13, 19], True, 20)
    assert len(got["counts"]) == len(got["sizes"]) == 4


def test_a_run_serves_the_partition_it_trained_on(client: TestClient) -> None:
    config = build_config({**digits(), "device": "cpu"}).model_dump(mode="json")
    run = submit(client, config)
    wait_final(client, run["id"])

    got = client.get(f"/api/runs/{run['id']}/partition")

    assert got.status_code == 200, got.text
    assert got.json() == client.post("/api/partition", json={"config": config}).json()


def test_a_regression_runs_partition_has_no_classes(client: TestClient) -> None:
    run = submit(client, example1(rounds=2))

    got = client.get(f"/api/runs/{run['id']}/partition").json()

    assert (got["n_clients"], got["n_classes"], got["counts"]) == (2, 0, [[], []])
    assert got["sizes"] == [10, 10]


def test_impossible_partitions_are_422s_naming_the_key_and_create_nothing(
    client: TestClient,
) -> None:
    before = runs(client)
    cases = [
        (digits(pathological={"classes_per_client": 11}), ["pathological", "classes_per_client"]),
        (digits(partition="natural"), ["natural", "by"]),
    ]
    for config, key in cases:
        for path in ("/api/runs", "/api/partition"):
            got = client.post(path, json={"config": config})

            assert got.status_code == 422, got.text
            locs = [e["loc"] for e in got.json()["detail"]]
            assert ["body", "config", "data", *key] in locs, locs
    assert runs(client) == before


def test_a_missing_dataset_is_a_422_at_its_root(client: TestClient) -> None:
    config = {"data": {"dataset": "mnist", "n_clients": 10, "partition": "iid"}}

    got = client.post("/api/partition", json={"config": config})

    assert got.status_code == 422, got.text
    assert got.json()["detail"][0]["loc"][:3] == ["body", "config", "data"]
