"""Where runs stand: measured speed, queue positions and ETAs (`db.standing`), the runs
list in activity order, an experiment's progress; and every config error in one answer."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from db.standing import Active, Standing, schedule
from tests.api.helpers import embedded_settings, example1, wait_final
from tests.eventually import eventually


def active(
    id: int,
    status: str,
    done: int = 0,
    total: int = 100,
    experiment: int | None = 1,
    source: str = "simulated",
    queue: str = "cpu",
) -> Active:
    return Active(id, status, source, queue, experiment, done, total)


def test_queued_runs_wait_for_the_slots_of_those_ahead() -> None:
    runs = [
        active(1, "running", done=60, total=100),  # 40 rounds left at 10/s: 4 s
        active(2, "running", done=0, total=50),  # not measured: the experiment's 20/s
        active(3, "queued", total=100),
        active(4, "queued", total=100),
        active(5, "queued", total=40, experiment=None),  # alone, never ran
        active(6, "queued", total=100),
    ]
    out = schedule(runs, {1: 10.0}, {1: 20.0}, slots=2)
    assert out[1] == Standing(10.0, None, 4.0)
    assert out[2] == Standing(None, None, 2.5)
    # Run 3 takes the slot freed first (2.5 s), run 4 the next (4 s); 100 rounds at 20/s.
    assert out[3] == Standing(None, 1, 7.5)
    assert out[4] == Standing(None, 2, 9.0)
    # Run 5 has no speed: unknown, and its slot never frees for the schedule; run 6 takes
    # the other one.
    assert out[5] == Standing(None, 3, None)
    assert out[6] == Standing(None, 4, 14.0)


def test_nothing_measured_means_no_eta_and_externals_hold_no_slot() -> None:
    runs = [
        active(1, "running"),
        active(2, "queued"),
        active(3, "running", done=10, source="external", experiment=None),
    ]
    out = schedule(runs, {3: 5.0}, {}, slots=1)
    assert out[1] == Standing(None, None, None)
    assert out[2] == Standing(None, 1, None)
    assert out[3] == Standing(5.0, None, 18.0)


def test_with_a_broker_each_device_queue_runs_as_many_as_run_now() -> None:
    runs = [
        active(1, "running", done=50, queue="cpu"),
        active(2, "queued", queue="gpu"),
        active(3, "queued", queue="cpu"),
        active(4, "queued", queue="gpu"),
    ]
    out = schedule(runs, {1: 10.0}, {1: 10.0}, slots=None)
    assert (out[3].queue_position, out[3].eta_s) == (1, 15.0)
    assert (out[2].queue_position, out[2].eta_s) == (1, 10.0)
    assert (out[4].queue_position, out[4].eta_s) == (2, 20.0)


@pytest.fixture(scope="module")
def one_at_a_time(db_url: str, api_data_root: Path) -> Iterator[TestClient]:
    """An embedded server that executes one run at a time."""
    settings = embedded_settings(db_url, data_root=str(api_data_root), embedded_concurrency=1)
    with TestClient(create_app(settings)) as c:
        yield c


def wait_for(client: TestClient, path: str, ok: Any) -> Any:
    """`path`'s answer once `ok` holds of it."""
    last: list[Any] = [None]

    def answer() -> Any:
        last[0] = client.get(path).json()
        return last[0] if ok(last[0]) else None

    return eventually(answer, lambda: f"{path} answering as awaited, not {last[0]}")


def test_an_experiment_in_the_queue_stands_in_order(one_at_a_time: TestClient) -> None:
    client = one_at_a_time
    rounds = 200_000  # far longer than the test: the runs are cancelled at its end
    body = {"name": "queue", "base": example1(rounds), "seeds": [0, 1, 2]}
    response = client.post("/api/experiments", json=body)
    assert response.status_code == 201, response.text
    experiment = response.json()
    first, second, third = ids = experiment["run_ids"]
    assert experiment["progress"]["rounds_total"] == 3 * rounds
    listed = f"/api/runs?experiment_id={experiment['id']}&order=activity"

    def measured(body: dict[str, Any]) -> bool:
        return all(r["eta_s"] is not None for r in body["data"])

    try:
        runs = wait_for(client, listed, measured)["data"]
        assert [r["id"] for r in runs] == [first, second, third]
        assert [r["status"] for r in runs] == ["running", "queued", "queued"]
        assert [r["queue_position"] for r in runs] == [None, 1, 2]
        speed = runs[0]["rounds_per_s"]
        assert speed > 0 and runs[1]["rounds_per_s"] is None
        # Its rounds left at its speed (the list and the board read the rounds apart).
        left = (rounds - runs[0]["rounds_done"]) / speed
        assert math.isclose(runs[0]["eta_s"], left, rel_tol=0.01)
        # The queued ones run after it, one at a time, at the experiment's speed: its own.
        etas = [r["eta_s"] for r in runs]
        assert math.isclose(etas[1] - etas[0], rounds / speed, rel_tol=1e-9)
        assert math.isclose(etas[2] - etas[1], rounds / speed, rel_tol=1e-9)

        progress = client.get(f"/api/experiments/{experiment['id']}").json()["progress"]
        assert progress["by_status"] == {"running": 1, "queued": 2}
        assert 0 < progress["rounds_done"] < rounds
        assert progress["eta_s"] > 2 * rounds / progress["rounds_per_s"]  # the last one's
        one = client.get(f"/api/runs/{third}").json()
        assert one["queue_position"] == 2 and one["eta_s"] > 0
    finally:
        for run_id in reversed(ids):
            client.post(f"/api/runs/{run_id}/cancel")
    for run_id in ids:
        assert wait_final(client, run_id)["status"] == "cancelled"
    # Finished runs come newest first; none has a place in the queue or an ETA.
    runs = client.get(listed).json()["data"]
    assert [r["id"] for r in runs] == [third, second, first]
    assert all(r["queue_position"] is None and r["eta_s"] is None for r in runs)
    progress = client.get(f"/api/experiments/{experiment['id']}").json()["progress"]
    assert progress["by_status"] == {"cancelled": 3} and progress["eta_s"] is None


def test_every_config_error_in_one_answer(client: TestClient) -> None:
    """Field errors do not hide the cross-field ones that read only valid fields."""
    config = {
        "rounds": 0,
        "data": {
            "n_clients": 4,
            "dataset": "mean_estimation",
            "mean_estimation": {"means": [1, "x"]},
        },
        "model": {"name": "scalar"},
        "algorithm": {"participation": 30},
        "client": {"lr": -1},
    }
    response = client.post("/api/runs", json={"config": config})
    assert response.status_code == 422
    errors = {tuple(e["loc"][2:]): e["msg"] for e in response.json()["detail"]}
    assert errors == {
        ("rounds",): "Input should be greater than or equal to 1",
        ("data", "mean_estimation", "means", 1): (
            "Input should be a valid number, unable to parse string as a number"
        ),
        ("client", "lr"): "Input should be greater than 0",
        ("algorithm", "participation"): "K = 30 exceeds data.n_clients = 4",
    }
    # A check that reads a failed field stays silent: n_clients is wrong, so K against it
    # cannot be judged.
    config = {"data": {"n_clients": 0}, "algorithm": {"participation": 30}}
    response = client.post("/api/runs", json={"config": config})
    assert [e["loc"][2:] for e in response.json()["detail"]] == [["data", "n_clients"]]
    # Every cross-field problem, not only the first.
    config = {
        "data": {"n_clients": 4, "clusters": {"n_clusters": 9}},
        "algorithm": {"participation": 30},
    }
    response = client.post("/api/runs", json={"config": config})
    assert [e["loc"][2:] for e in response.json()["detail"]] == [
        ["algorithm", "participation"],
        ["data", "clusters", "n_clusters"],
    ]
