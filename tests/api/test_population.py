"""A run of a million clients through the service: admitted, stored, and read back as
rasters, the exact staleness distribution and curves.

FedAvg picks 100 of the available clients each round; a client's staleness is 0 in the
round it is picked and rounds since its last pick otherwise (t + 1 before any), so over
3 rounds the distribution holds N × 3 cells, 300 of them 0 (each round's picks), none
above 3.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.helpers import submit, wait_final
from worker.engine import build_config

N = 1_000_000
ROUNDS = 3


@pytest.fixture(scope="module")
def run(client: TestClient) -> dict[str, Any]:
    config = build_config(
        {
            "data": {
                "dataset": "synthetic_clustered",
                "n_clients": N,
                "synthetic_clustered": {"train_per_client": 2, "test_per_client": 1},
            },
            "model": {"name": "linear"},
            "algorithm": {"name": "fedavg", "participation": 100},
            "availability": {"kind": "bernoulli"},
            "rounds": ROUNDS,
            "device": "cpu",
        }
    )
    created = submit(client, config.model_dump(mode="json"))
    done = wait_final(client, created["id"], timeout=600)
    assert done["status"] == "succeeded", done["error"]
    return done


def test_the_rasters_are_downsampled(client: TestClient, run: dict[str, Any]) -> None:
    base = f"/api/runs/{run['id']}"
    q = {"max_clients": 50, "max_rounds": 3}
    for view in ("availability", "selection", "staleness"):
        body = client.get(f"{base}/{view}", params=q).json()
        assert len(body["clients"]) <= 50 and body["rounds"] == [0, 1, 2]
        assert len(body["values"]) == len(body["clients"])


def test_the_staleness_distribution_is_exact(client: TestClient, run: dict[str, Any]) -> None:
    exact = client.get(f"/api/runs/{run['id']}/staleness/distribution").json()

    assert (exact["cells"], exact["rounds"]) == (N * ROUNDS, ROUNDS)
    assert sum(exact["counts"]) == N * ROUNDS
    assert exact["counts"][0] == 100 * ROUNDS
    assert exact["max"] <= ROUNDS


def test_the_curves_hold_every_round(client: TestClient, run: dict[str, Any]) -> None:
    body = client.get(
        f"/api/runs/{run['id']}/metrics", params={"names": "n_selected,test_acc"}
    ).json()

    assert body["series"]["n_selected"]["last"] == [100.0] * ROUNDS
    assert body["series"]["test_acc"]["round"][-1] == ROUNDS - 1
