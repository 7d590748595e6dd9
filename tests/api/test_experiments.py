from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from scipy.stats import ttest_rel

from tests.api.helpers import wait_final

SYNTHETIC: dict[str, Any] = {
    "rounds": 8,
    "device": "cpu",
    "data": {"n_clients": 6},
    "algorithm": {"participation": 3},
    "availability": {"kind": "bernoulli"},
    "client": {"local_steps": 2},
}


def create(client: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/api/experiments", json=body)
    assert response.status_code == 201, response.text
    experiment: dict[str, Any] = response.json()
    return experiment


def test_grid_times_seeds(client: TestClient) -> None:
    body = {
        "name": "sweep",
        "base": SYNTHETIC,
        "grid": {"algorithm.name": ["fedavg", "mifa"], "client.lr": [0.05]},
        "seeds": [0, 1, 2],
    }
    experiment = create(client, body)
    assert len(experiment["run_ids"]) == 6
    runs = [wait_final(client, i) for i in experiment["run_ids"]]
    assert all(r["status"] == "succeeded" for r in runs)
    assert [(r["algorithm"], r["seed"]) for r in runs] == [
        ("fedavg", 0),
        ("fedavg", 1),
        ("fedavg", 2),
        ("mifa", 0),
        ("mifa", 1),
        ("mifa", 2),
    ]
    assert runs[0]["name"] == "sweep [algorithm.name=fedavg, client.lr=0.05] seed=0"
    assert {r["config"]["client"]["lr"] for r in runs} == {0.05}
    listed = client.get("/api/runs", params={"experiment_id": experiment["id"]}).json()
    assert listed["count"] == 6
    read = client.get(f"/api/experiments/{experiment['id']}").json()
    assert read | {"progress": experiment["progress"]} == experiment
    assert read["progress"] == {
        "by_status": {"succeeded": 6},
        "rounds_done": 48,
        "rounds_total": 48,
        "rounds_per_s": read["progress"]["rounds_per_s"],
        "eta_s": None,
    }
    assert read["progress"]["rounds_per_s"] > 0

    compare = client.get(
        "/api/compare",
        params={"runs": ",".join(map(str, experiment["run_ids"])), "metric": "test_acc"},
    ).json()
    assert [g["name"] for g in compare["groups"]] == ["fedavg", "mifa"]
    fedavg_runs = [r for r in runs if r["algorithm"] == "fedavg"]
    mean0 = (
        sum(
            client.get(f"/api/runs/{r['id']}/rounds", params={"limit": 1}).json()["data"][0][
                "test_acc"
            ]
            for r in fedavg_runs
        )
        / 3
    )
    assert compare["groups"][0]["x"][0] == 0
    assert compare["groups"][0]["mean"][0] == pytest.approx(mean0)
    row = compare["table"][0]
    finals = [r["summary"]["final_test_acc"] for r in fedavg_runs]
    assert row["n"] == 3
    assert row["stats"]["final_test_acc"]["mean"] == pytest.approx(sum(finals) / 3)
    # What differs between the runs' configs (seeds pair the runs; client.lr is the same).
    assert compare["config_keys"] == ["algorithm.name"]
    assert [r["config"] for r in compare["table"]] == [
        {"algorithm.name": ["fedavg"]},
        {"algorithm.name": ["mifa"]},
    ]
    by_seed: dict[str, dict[int, float]] = {r["algorithm"]: {} for r in runs}
    for r in runs:
        by_seed[r["algorithm"]][r["seed"]] = r["summary"]["time_avg_test_acc"]
    expected = ttest_rel(
        [by_seed["mifa"][s] for s in range(3)], [by_seed["fedavg"][s] for s in range(3)]
    ).pvalue
    (test,) = [t for t in compare["ttests"] if t["metric"] == "time_avg_test_acc"]
    assert (test["group"], test["reference"], test["n_pairs"]) == ("mifa", "fedavg", 3)
    assert test["p_value"] == pytest.approx(expected, nan_ok=True)
    diffs = [by_seed["mifa"][s] - by_seed["fedavg"][s] for s in range(3)]
    assert test["mean_diff"] == pytest.approx(sum(diffs) / 3)


def test_invalid_cell_creates_nothing(client: TestClient) -> None:
    before_runs = client.get("/api/runs").json()["count"]
    before_experiments = client.get("/api/experiments").json()["count"]
    body = {
        "name": "bad",
        "base": SYNTHETIC,
        "grid": {"algorithm.name": ["fedavg", "nope"], "algorithm.participation": [3, 9]},
    }
    response = client.post("/api/experiments", json=body)
    assert response.status_code == 422
    locs = {tuple(e["loc"]) for e in response.json()["detail"]}
    assert locs == {
        ("body", "grid", "algorithm.name"),
        ("body", "grid", "algorithm.participation"),
    }
    assert client.get("/api/runs").json()["count"] == before_runs
    assert client.get("/api/experiments").json()["count"] == before_experiments


def test_compare_rejects_unknown_runs_and_groups(client: TestClient) -> None:
    assert client.get("/api/compare", params={"runs": "999999"}).status_code == 404
    assert client.get("/api/compare", params={"runs": "a,b"}).status_code == 422
    assert client.get("/api/experiments/999999").status_code == 404


def test_explicit_cells_carry_their_own_settings(client: TestClient) -> None:
    """A paper's comparison set: each method with its own learning rates."""
    body = {
        "name": "methods",
        "base": {**SYNTHETIC, "rounds": 2},
        "cells": [
            {"label": "fedavg", "set": {"algorithm.name": "fedavg", "client.lr": 0.05}},
            {"set": {"algorithm.name": "mifa", "client.lr": 0.02, "server.lr": 0.5}},
        ],
        "grid": {"client.local_steps": [1, 2]},
        "seeds": [0, 1],
    }
    experiment = create(client, body)

    runs = [wait_final(client, i) for i in experiment["run_ids"]]
    assert experiment["cells"][0] == body["cells"][0]  # type: ignore[index]
    assert len(runs) == 2 * 2 * 2
    settings = {
        (r["algorithm"], r["config"]["client"]["lr"], r["config"]["server"]["lr"]) for r in runs
    }
    assert settings == {("fedavg", 0.05, 1.0), ("mifa", 0.02, 0.5)}
    assert runs[0]["name"] == "methods [fedavg, client.local_steps=1] seed=0"
    mifa = "algorithm.name=mifa, client.lr=0.02, server.lr=0.5"
    assert runs[4]["name"] == f"methods [{mifa}, client.local_steps=1] seed=0"


def test_a_bad_cell_setting_is_blamed_on_its_cell(client: TestClient) -> None:
    body = {
        "name": "bad cell",
        "base": SYNTHETIC,
        "cells": [
            {"set": {"algorithm.name": "fedavg"}},
            {"set": {"algorithm.name": "mifa", "client.lr": -1}},
        ],
    }
    response = client.post("/api/experiments", json=body)

    assert response.status_code == 422
    locs = {tuple(e["loc"]) for e in response.json()["detail"]}
    assert locs == {("body", "cells", 1, "set", "client.lr")}
