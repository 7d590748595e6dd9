"""A comparison of private runs: the ε values are table columns, in every export, and
the trade-off chart's values and defaults come with it; its points are the table's own
means and CIs."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.test_ingest import external, post

# Per algorithm and seed: the last round's (test_acc, ε assumed, ε worst client).
LAST = {
    ("fedavg", 0): (0.80, 1.0, 3.0),
    ("fedavg", 1): (0.84, 1.0, 5.0),
    ("fedlaavg", 0): (0.70, 2.0, 6.0),
    ("fedlaavg", 1): (0.74, 2.0, 8.0),
}
EPSILONS = ["final_epsilon_assumed", "final_epsilon_client_max"]


def private_run(client: TestClient, algorithm: str, seed: int) -> int:
    run = external(client, config={"algorithm": algorithm, "seed": seed})
    acc, assumed, worst = LAST[(algorithm, seed)]
    metrics = {"test_acc": acc, "epsilon_assumed": assumed, "epsilon_client_max": worst}
    assert post(client, run["id"], [{"round": 0, "metrics": metrics}]).status_code == 200
    finish = client.post(f"/api/runs/{run['id']}/finish", json={"status": "succeeded"})
    assert finish.status_code == 200
    return int(run["id"])


def compared(client: TestClient, **params: Any) -> Any:
    ids = [private_run(client, a, s) for a, s in LAST]
    return client.get("/api/compare", params={"runs": ",".join(map(str, ids)), **params})


def test_the_trade_off_and_its_points_come_with_the_comparison(client: TestClient) -> None:
    got = compared(client).json()

    tradeoff = got["tradeoff"]
    assert (tradeoff["x"], tradeoff["y"], tradeoff["assumed"]) == (
        "final_epsilon_client_max",
        "best_test_acc",
        "final_epsilon_assumed",
    )
    assert tradeoff["epsilon"] == EPSILONS
    assert {"best_test_acc", "final_test_acc", *EPSILONS} <= set(tradeoff["values"])
    worst = {row["group"]: row["stats"]["final_epsilon_client_max"] for row in got["table"]}
    assert (worst["fedavg"]["mean"], worst["fedlaavg"]["mean"]) == (4.0, 7.0)
    for stat in worst.values():  # two seeds each: an interval around the mean
        assert stat["n"] == 2 and stat["ci_low"] < stat["mean"] < stat["ci_high"]


def test_every_export_has_the_epsilon_columns(client: TestClient) -> None:
    ids = [private_run(client, a, s) for a, s in LAST]
    runs = ",".join(map(str, ids))

    csv, md, tex = (
        client.get("/api/compare", params={"runs": runs, "format": f}).text
        for f in ("csv", "md", "tex")
    )

    header = csv.splitlines()[0]
    assert "final_epsilon_assumed[ε].mean" in header
    assert "final_epsilon_client_max[ε].mean" in header
    assert "ε assumed" in md and "ε worst" in md
    assert "ε assumed" in tex and "ε worst" in tex


def test_runs_without_epsilon_have_no_trade_off(client: TestClient) -> None:
    ids = []
    for algorithm in ("fedavg", "fedlaavg"):
        run = external(client, config={"algorithm": algorithm})
        assert post(client, run["id"], [{"round": 0, "metrics": {"test_acc": 0.5}}]).is_success
        ids.append(str(run["id"]))

    got = client.get("/api/compare", params={"runs": ",".join(ids)}).json()

    assert got["tradeoff"] is None
