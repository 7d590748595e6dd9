"""Runs with a system model through the API: their files checked before anything is
created, their simulated time recorded, and their client timeline served."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.helpers import submit, wait_final
from tests.engine.system.test_fedscale import Payload


def timed(**system: Any) -> dict[str, Any]:
    return {
        "rounds": 4,
        "device": "cpu",
        "data": {"n_clients": 8},
        "algorithm": {"participation": 4},
        "system": system,
        "round": {"deadline_s": 0.5},
        "eval": {"target_acc": 0.5},
    }


def runs(client: TestClient) -> int:
    count: int = client.get("/api/runs").json()["count"]
    return count


def test_a_pickle_that_would_run_code_is_refused_with_a_422(
    client: TestClient, api_data_root: Path
) -> None:
    marker = api_data_root / "ran"
    (api_data_root / "evil.pkl").write_bytes(pickle.dumps({1: Payload(marker)}))
    before = runs(client)

    response = client.post(
        "/api/runs",
        json={"config": timed(kind="fedscale", fedscale={"device_file": "evil.pkl"})},
    )

    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "config", "system", "fedscale", "device_file"]
    assert error["msg"].startswith("file 'evil.pkl': holds builtins.exec, which is not a dict")
    assert runs(client) == before and not marker.exists()


def test_a_timed_run_records_its_clock_and_timeline(client: TestClient) -> None:
    run = submit(client, timed(kind="profiles"))
    done = wait_final(client, run["id"])

    assert done["status"] == "succeeded"
    series = client.get(f"/api/runs/{run['id']}/metrics").json()["series"]
    ends = series["sim_time_s"]["last"]
    assert len(ends) == 4 and ends == sorted(ends) and ends[-1] > 0
    assert done["summary"]["sim_time_total_s"] == ends[-1]
    assert done["summary"]["total_bytes"] > 0
    timeline = client.get(f"/api/runs/{run['id']}/timeline", params={"max_buckets": 50}).json()
    assert timeline["labels"][:3] == ["offline", "online", "training"]
    assert timeline["clients"] == list(range(8)) and len(timeline["times"]) == 50
    assert timeline["width_s"] * 50 == ends[-1]
    seen = {s for row in timeline["states"] for s in row}
    assert {1, 2, 4} <= seen  # online, training, kept
    # A window after the run's end holds no round: an empty timeline (it was a 500).
    after = {"start_s": ends[-1] + 1, "end_s": ends[-1] + 2}
    late = client.get(f"/api/runs/{run['id']}/timeline", params=after)
    assert late.status_code == 200 and late.json()["times"] == []


def test_a_run_without_a_system_model_has_no_timeline(client: TestClient) -> None:
    config = timed()
    del config["round"]
    run = submit(client, config)
    done = wait_final(client, run["id"])

    timeline = client.get(f"/api/runs/{run['id']}/timeline").json()

    assert done["status"] == "succeeded" and done["summary"]["sim_time_total_s"] is None
    assert timeline["times"] == [] and timeline["states"] == [[]] * 8


def test_compare_against_simulated_time(client: TestClient) -> None:
    timed_id = submit(client, timed(kind="profiles"))["id"]
    plain = timed()
    del plain["round"]
    plain_id = submit(client, plain)["id"]
    for run_id in (timed_id, plain_id):
        wait_final(client, run_id)

    c = client.get(
        "/api/compare",
        params={"runs": f"{timed_id},{plain_id}", "x": "sim_time_s", "group_by": "none"},
    ).json()

    ends = client.get(f"/api/runs/{timed_id}/metrics").json()["series"]["sim_time_s"]["last"]
    by_run = {r["id"]: r for r in c["runs"]}
    assert c["x"] == "sim_time_s"
    assert by_run[timed_id]["x"] == ends and len(by_run[timed_id]["y"]) == 4
    assert by_run[plain_id]["x"] == [] and by_run[plain_id]["y"] == []  # it has no clock
    # the figures draw the same axis: a run's, and the comparison's
    figure = client.get(f"/api/runs/{timed_id}/figure.svg", params={"x": "sim_time_s"})
    compared = client.get(
        "/api/compare/figure.svg",
        params={"runs": f"{timed_id},{plain_id}", "x": "sim_time_s", "group_by": "none"},
    )
    assert figure.status_code == compared.status_code == 200
    assert "simulated time (s)" in figure.text and "simulated time (s)" in compared.text


def test_an_async_run_counts_staleness_in_versions(client: TestClient) -> None:
    config = {
        "rounds": 6,
        "device": "cpu",
        "data": {"n_clients": 8},
        "availability": {"kind": "bernoulli"},
        "algorithm": {"name": "fedbuff", "fedbuff": {"concurrency": 4, "buffer": 2}},
        "system": {"kind": "profiles"},
    }
    run = submit(client, config)
    done = wait_final(client, run["id"])

    assert done["status"] == "succeeded", done["error"]
    base = f"/api/runs/{run['id']}"
    assert client.get(f"{base}/staleness/distribution").json()["unit"] == "versions"
    series = client.get(f"{base}/metrics").json()["series"]
    assert len(series["update_staleness_max"]["last"]) == 6
    part = client.get(f"{base}/participation").json()
    assert sum(part["kept"]) >= 6  # at least one client's update in each server update
    assert len(part["work_s"]) == len(part["kept"]) and part["by_device_time"]
    # the engine's summary value and the stored records' agree (weights stored as float32)
    assert done["summary"]["participation_tv"] == pytest.approx(part["participation_tv"], abs=1e-6)
    slowest = part["by_device_time"][0]
    assert done["summary"]["slowest_gap"] == pytest.approx(slowest["gap"], abs=1e-6)
