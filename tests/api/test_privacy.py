"""Privacy through the API: a combination that breaks a mechanism's guarantee is a 422
naming the field and why, with nothing created; a private run records its ε as round
metrics that the catalogue knows."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.helpers import submit, wait_final
from worker.engine.privacy.guarantee import MEMORY

CENTRAL = {"kind": "central", "central": {"noise_multiplier": 1.5}}


def test_a_broken_guarantee_is_refused_with_its_reason(client: TestClient) -> None:
    before = client.get("/api/runs").json()["count"]
    config = {"algorithm": {"name": "mifa", "weights": "uniform"}, "privacy": CENTRAL}

    response = client.post("/api/runs", json={"config": config})

    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "config", "algorithm", "name"]
    assert error["msg"] == f"mifa {MEMORY}; refused under privacy.kind=central"
    assert client.get("/api/runs").json()["count"] == before


def test_a_private_run_records_its_epsilon(client: TestClient) -> None:
    config = {
        "rounds": 3,
        "device": "cpu",
        "algorithm": {"weights": "uniform"},
        "availability": {"kind": "bernoulli"},
        "privacy": CENTRAL,
    }
    run = submit(client, config)
    assert wait_final(client, run["id"])["status"] == "succeeded"

    series = client.get(f"/api/runs/{run['id']}/metrics").json()["series"]
    assumed = series["epsilon_assumed"]["last"]
    assert series["epsilon_assumed"]["round"] == [0, 1, 2]
    assert 0 < assumed[0] < assumed[1] < assumed[2]
    assert series["clip_norm"]["last"] == [1.0, 1.0, 1.0]
    catalogue = {m["name"]: m for m in client.get("/api/metrics/catalog").json()}
    for name in ("epsilon_assumed", "epsilon_client_max", "epsilon_client_median"):
        assert (catalogue[name]["unit"], catalogue[name]["better"]) == ("ε", "lower")
