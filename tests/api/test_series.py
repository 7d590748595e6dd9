"""Series, matrices, rows, CSV and events of Example 1 under FedAvg, checked by hand.

Client 0 (mean +1) is available in rounds [0, 30) of every 40, client 1 (mean −1) in
[30, 40); FedAvg trains the one available client: x ← 0.98·x + 0.02·e, x₀ = 0.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from tests.api.helpers import example1, submit, wait_final


def params(rounds: int) -> list[float]:
    x, out = 0.0, []
    for t in range(rounds):
        x = 0.98 * x + 0.02 * (1.0 if t % 40 < 30 else -1.0)
        out.append(x)
    return out


@pytest.fixture(scope="module")
def run(client: TestClient) -> dict[str, Any]:
    created = submit(client, example1(120, algorithm__name="fedavg"))
    done = wait_final(client, created["id"])
    assert done["status"] == "succeeded", done["error"]
    return done


def test_buckets_keep_min_max_last(client: TestClient, run: dict[str, Any]) -> None:
    body = client.get(
        f"/api/runs/{run['id']}/metrics", params={"names": "param,n_selected", "max_points": 4}
    ).json()
    x = params(120)
    p = body["series"]["param"]
    assert p["round"] == [29, 59, 89, 119]
    np.testing.assert_allclose(p["last"], [x[29], x[59], x[89], x[119]], rtol=1e-5)
    # e = −1 in rounds 30-39, 70-79, 110-119: the extremes sit at those turns.
    np.testing.assert_allclose(p["min"], [x[0], x[39], x[79], x[119]], rtol=1e-5)
    np.testing.assert_allclose(p["max"], [x[29], x[59], x[69], x[109]], rtol=1e-5)
    assert body["series"]["n_selected"]["max"] == [1.0, 1.0, 1.0, 1.0]


def test_all_names_by_default_and_range(client: TestClient, run: dict[str, Any]) -> None:
    body = client.get(
        f"/api/runs/{run['id']}/metrics", params={"start": 10, "end": 19, "max_points": 1000}
    ).json()
    assert {"param", "wall_s", "staleness_mean", "n_available"} <= set(body["series"])
    assert body["series"]["param"]["round"] == list(range(10, 20))
    np.testing.assert_allclose(body["series"]["param"]["last"], params(20)[10:], rtol=1e-5)


def test_client_matrices(client: TestClient, run: dict[str, Any]) -> None:
    base = f"/api/runs/{run['id']}"
    q = {"max_clients": 2, "max_rounds": 3}
    avail = client.get(f"{base}/availability", params=q).json()
    assert (avail["clients"], avail["rounds"]) == ([0, 1], [0, 40, 80])
    assert avail["values"] == [[0.75] * 3, [0.25] * 3]
    assert client.get(f"{base}/selection", params=q).json()["values"] == avail["values"]
    stale = client.get(f"{base}/staleness", params=q).json()["values"]
    # Bucket [0, 40): client 0 stale 1..10 in rounds 30-39 -> 55/40;
    # client 1 never selected before round 30: 1..30 -> 465/40.
    assert stale[0][0] == pytest.approx(55 / 40)
    assert stale[1][0] == pytest.approx(465 / 40)
    # Exact, over all 240 cells: client 0 is stale 1..10 three times (rounds 30-39,
    # 70-79, 110-119) and 0 otherwise; client 1 is stale 1..30 three times (rounds 0-29,
    # 40-69, 80-109) and 0 in its 30 rounds.
    exact = client.get(f"{base}/staleness/distribution").json()
    assert exact["unit"] == "rounds"  # a synchronous run
    assert exact["counts"] == [120] + [6] * 10 + [3] * 20
    assert (exact["width"], exact["starts"][:3], exact["max"]) == (1, [0, 1, 2], 30)
    assert (exact["cells"], exact["rounds"]) == (240, 120)
    assert exact["mean"] == pytest.approx((3 * 55 + 3 * 465) / 240)
    binned = client.get(f"{base}/staleness/distribution", params={"max_bins": 4}).json()
    assert (binned["width"], binned["starts"]) == (8, [0, 8, 16, 24])
    assert binned["counts"] == [120 + 7 * 6, 3 * 6 + 5 * 3, 8 * 3, 7 * 3]
    accuracy = client.get(f"{base}/client-accuracy").json()
    assert accuracy == {"round": None, "values": None}


def test_rounds_after(client: TestClient, run: dict[str, Any]) -> None:
    rows = client.get(f"/api/runs/{run['id']}/rounds", params={"after": 100, "limit": 3}).json()
    assert [r["round"] for r in rows["data"]] == [101, 102, 103]
    assert rows["data"][0]["param"] == pytest.approx(params(102)[101], rel=1e-5)
    assert rows["data"][0]["wall_s"] > 0


def test_csv_export(client: TestClient, run: dict[str, Any]) -> None:
    response = client.get(f"/api/runs/{run['id']}/export.csv")
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert len(rows) == 120
    assert rows[0].keys() >= {"round", "param", "wall_s", "staleness_mean"}
    assert [int(r["round"]) for r in rows] == list(range(120))
    assert float(rows[0]["param"]) == pytest.approx(0.02, rel=1e-6)


def parse_events(text: str) -> list[dict[str, str]]:
    events = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append(fields)
    return events


def test_events_resume_after_last_event_id(client: TestClient, run: dict[str, Any]) -> None:
    response = client.get(f"/api/runs/{run['id']}/events", headers={"Last-Event-ID": "115"})
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_events(response.text)
    assert [e["event"] for e in events] == ["round"] * 4 + ["status"]
    assert [e["id"] for e in events[:4]] == ["116", "117", "118", "119"]
    assert '"status":"succeeded"' in events[-1]["data"]


def test_events_follow_a_live_run(client: TestClient) -> None:
    created = submit(client, example1(3000, algorithm__name="fedavg"))
    with client.stream("GET", f"/api/runs/{created['id']}/events") as response:
        text = "".join(response.iter_text())
    events = parse_events(text)
    rounds = [int(e["id"]) for e in events if e["event"] == "round"]
    statuses = [e["data"] for e in events if e["event"] == "status"]
    assert rounds == list(range(3000))
    assert len(statuses) >= 2  # queued or running first, then progress, then final
    assert '"status":"succeeded"' in statuses[-1]


def test_an_algorithms_own_metric_is_stored_and_served(client: TestClient) -> None:
    created = submit(client, example1(40, algorithm__name="fedlaavg"))
    done = wait_final(client, created["id"])
    body = client.get(
        f"/api/runs/{done['id']}/metrics", params={"names": "memory_filled", "max_points": 1000}
    ).json()

    # client 0 alone reports in rounds 0-29, client 1 from round 30: ½ of the clients, then all
    series = body["series"]["memory_filled"]
    assert series["round"] == list(range(40))
    assert series["last"] == [0.5] * 30 + [1.0] * 10


def test_participation_of_each_client(client: TestClient, run: dict[str, Any]) -> None:
    # Client 0 is available (and trains, alone) in 30 of every 40 rounds, client 1 in
    # 10: over 120 rounds 90 and 30 kept updates, p̄ = (¾, ¼) against α = (½, ½): TV ¼.
    # The least available half (client 1) makes ¼ of the aggregate for ½ of the data.
    body = client.get(f"/api/runs/{run['id']}/participation").json()

    assert body["rounds"] == 120
    assert body["available_share"] == [0.75, 0.25]
    assert (body["kept"], body["dropped"], body["stale"]) == ([90, 30], [0, 0], [0, 0])
    assert body["aggregate_share"] == [0.75, 0.25]
    assert (body["data_share"], body["data_known"]) == ([0.5, 0.5], True)
    assert body["participation_tv"] == pytest.approx(0.25)
    least, most = body["by_availability"]
    assert (least["clients"], least["key_high"], least["gap"]) == (1, 0.25, pytest.approx(-0.25))
    assert most["gap"] == pytest.approx(0.25)
    assert body["work_s"] is None and body["by_device_time"] is None  # no system model
    assert run["summary"]["participation_tv"] == pytest.approx(body["participation_tv"])
    assert run["summary"]["least_available_gap"] == pytest.approx(-0.25)
