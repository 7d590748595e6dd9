"""The ingest API: external runs, idempotent round batches, 409 and 422 with nothing
stored, the finish with the server's summary, the token, and `stalled`."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from db.models import Run
from db.session import make_engine, make_sessionmaker
from tests.api.helpers import embedded_settings, example1, submit
from tests.eventually import eventually
from worker.engine.bias import SUMMARY_NAMES as BIAS

ROUNDS = [
    {
        "round": 0,
        "metrics": {"test_acc": 0.5, "test_loss": 1.0},
        "available": [0, 1],
        "selected": [0],
        "weights": {"0": 1.0},
        "wall_s": 0.25,
    },
    {
        "round": 1,
        "metrics": {"test_acc": 0.7},
        "available": [1, 2],
        "selected": [1, 2],
        "weights": {"1": 0.5, "2": 0.5},
        "wall_s": 0.5,
    },
    {
        "round": 2,
        "metrics": {"test_acc": 0.6, "test_loss": 0.8},
        "available": [0, 1, 2],
        "selected": [0],
        "weights": {"0": 1.0},
        "client_acc": [0.5, None, 0.75],
        "wall_s": 0.75,
    },
]


def external(client: TestClient, n_clients: int = 3, **extra: Any) -> dict[str, Any]:
    body = {"source": "external", "name": "mine", "config": {"lr": 0.1}, "n_clients": n_clients}
    body |= extra
    response = client.post("/api/runs", json=body)
    assert response.status_code == 201, response.text
    run: dict[str, Any] = response.json()
    assert (run["status"], run["source"], run["config"]) == ("running", "external", body["config"])
    return run


def post(client: TestClient, run_id: int, rounds: list[dict[str, Any]]) -> Any:
    return client.post(f"/api/runs/{run_id}/rounds", json={"rounds": rounds})


def matrix(client: TestClient, run_id: int, view: str) -> list[list[float]]:
    response = client.get(f"/api/runs/{run_id}/{view}", params={"max_rounds": 1000})
    values: list[list[float]] = response.json()["values"]
    return values


def test_rounds_are_stored_and_read_back_by_every_view(client: TestClient) -> None:
    run = external(client)
    answer = post(client, run["id"], ROUNDS)
    assert answer.json() == {"stored": 3, "unchanged": 0, "rounds_done": 3}

    series = client.get(f"/api/runs/{run['id']}/metrics").json()["series"]
    assert series["test_acc"]["last"] == [0.5, 0.7, 0.6]
    assert (series["test_loss"]["round"], series["test_loss"]["last"]) == ([0, 2], [1.0, 0.8])
    assert series["wall_s"]["last"] == [0.25, 0.5, 0.75]
    assert matrix(client, run["id"], "availability") == [[1, 0, 1], [1, 1, 1], [0, 1, 1]]
    assert matrix(client, run["id"], "selection") == [[1, 0, 1], [0, 1, 0], [0, 1, 0]]
    # staleness u − L_k(u), L_k(u) the last selection at or before u (−1 before any)
    assert matrix(client, run["id"], "staleness") == [[0, 1, 0], [1, 0, 1], [1, 0, 1]]
    accuracy = client.get(f"/api/runs/{run['id']}/client-accuracy").json()
    assert accuracy == {"round": 2, "values": [0.5, None, 0.75]}
    csv = client.get(f"/api/runs/{run['id']}/export.csv").text.splitlines()
    assert csv[0] == "round,test_acc,test_loss,wall_s" and csv[2] == "1,0.7,,0.5"


def test_a_retried_batch_is_harmless_and_a_rewrite_is_a_conflict(client: TestClient) -> None:
    run = external(client)
    assert post(client, run["id"], ROUNDS[:2]).json()["stored"] == 2
    assert post(client, run["id"], ROUNDS).json() == {"stored": 1, "unchanged": 2, "rounds_done": 3}

    changed = [ROUNDS[2], {**ROUNDS[2], "round": 3}]
    changed[0] = {**ROUNDS[2], "selected": [1]}
    conflict = post(client, run["id"], changed)
    assert conflict.status_code == 409 and "round 2" in conflict.json()["detail"]
    other_metric = post(client, run["id"], [{**ROUNDS[1], "metrics": {"test_acc": 0.71}}])
    assert other_metric.status_code == 409 and "metrics" in other_metric.json()["detail"]
    assert client.get(f"/api/runs/{run['id']}").json()["rounds_done"] == 3  # round 3 not stored
    assert matrix(client, run["id"], "selection") == [[1, 0, 1], [0, 1, 0], [0, 1, 0]]


@pytest.mark.parametrize(
    ("bad", "loc"),
    [
        ({"round": 1, "available": [0, 3]}, [1, "available", 1]),
        ({"round": 1, "selected": [2, 2]}, [1, "selected"]),
        ({"round": 1, "weights": {"7": 1.0}}, [1, "weights", 0]),
        ({"round": 1, "client_acc": [0.5]}, [1, "client_acc"]),
        ({"round": 0}, [1, "round"]),
        ({"round": 1, "metrics": {"acc": "high"}}, [1, "metrics", "acc"]),
        ({"round": 1, "selected": [-1]}, [1, "selected", 0]),
        ({"round": 1, "colour": "red"}, [1, "colour"]),
        # `true` is no number in JSON, even where Python would take it for 1.
        ({"round": 1, "client_acc": [False, 0.5, 0.5]}, [1, "client_acc", 0]),
        ({"round": 1, "selected": [True]}, [1, "selected", 0]),
        ({"round": 1, "metrics": {"acc": True}}, [1, "metrics", "acc"]),
        ({"round": True}, [1, "round"]),
    ],
)
def test_a_bad_record_is_named_and_nothing_of_its_batch_is_stored(
    client: TestClient, bad: dict[str, Any], loc: list[str | int]
) -> None:
    run = external(client)
    answer = post(client, run["id"], [ROUNDS[0], bad])
    assert answer.status_code == 422, answer.text
    assert [e["loc"] for e in answer.json()["detail"]] == [["body", "rounds", *loc]]
    assert client.get(f"/api/runs/{run['id']}").json()["rounds_done"] == 0
    assert client.get(f"/api/runs/{run['id']}/rounds").json()["data"] == []


def test_batches_and_bodies_are_capped(client: TestClient) -> None:
    run = external(client)
    answer = post(client, run["id"], [{"round": t} for t in range(1001)])
    assert answer.status_code == 422
    assert [e["loc"] for e in answer.json()["detail"]] == [["body", "rounds"]]
    huge = [{"round": t, "metrics": {f"m{i}": 0.5 for i in range(200)}} for t in range(1000)]
    assert post(client, run["id"], huge).status_code == 413
    assert client.get(f"/api/runs/{run['id']}").json()["rounds_done"] == 0


def test_finish_stores_the_summary_of_the_recorded_metrics(client: TestClient) -> None:
    run = external(client, config={"target_acc": 0.65})
    post(client, run["id"], ROUNDS)
    done = client.post(f"/api/runs/{run['id']}/finish", json={"status": "succeeded"})
    assert done.status_code == 200, done.text
    summary = done.json()["summary"]
    assert (summary["best_test_acc"], summary["final_test_acc"]) == (0.7, 0.6)
    assert summary["time_avg_test_acc"] == pytest.approx(0.6)
    assert summary["std_test_acc_second_half"] == pytest.approx(0.05)  # rounds 1, 2
    assert (summary["rounds_to_target"], summary["final_test_loss"]) == (2, 0.8)
    assert (summary["rounds_done"], summary["wall_s"]) == (3, 0.75)
    assert summary["client_updates_per_s"] == pytest.approx(4 / 0.75)  # 1 + 2 + 1 selected
    assert done.json()["status"] == "succeeded" and done.json()["rounds_total"] == 3
    again = client.post(f"/api/runs/{run['id']}/finish", json={"status": "succeeded"})
    assert again.status_code == 200
    assert (
        client.post(f"/api/runs/{run['id']}/finish", json={"status": "failed"}).status_code == 409
    )
    assert post(client, run["id"], [{"round": 3}]).status_code == 409


@pytest.mark.parametrize("status", ["succeeded", "failed"])
def test_a_run_of_huge_finite_metrics_finishes(client: TestClient, status: str) -> None:
    # Before: a 500 (OverflowError in the std of the second half), and the run stayed
    # running for ever.
    run = external(client)
    values = [1e300, -1e300, 1e300, -1e300]
    rounds = [{"round": t, "metrics": {"test_acc": v}} for t, v in enumerate(values)]
    assert post(client, run["id"], rounds).status_code == 200
    done = client.post(f"/api/runs/{run['id']}/finish", json={"status": status})
    assert done.status_code == 200, done.text
    assert done.json()["status"] == status
    second_half = 1e300 * math.sqrt(8) / 3  # rounds completed 2..4: (-1e300, 1e300, -1e300)
    assert done.json()["summary"]["std_test_acc_second_half"] == pytest.approx(second_half)
    assert client.get(f"/api/runs/{run['id']}").json()["summary"]["best_test_acc"] == 1e300


def test_a_failed_run_keeps_its_message(client: TestClient) -> None:
    run = external(client)
    body = {"status": "failed", "message": "CUDA out of memory"}
    failed = client.post(f"/api/runs/{run['id']}/finish", json=body).json()
    assert (failed["status"], failed["error"]) == ("failed", "CUDA out of memory")
    assert client.post(f"/api/runs/{run['id']}/resume").status_code == 409


def test_external_and_simulated_runs_keep_to_their_own_paths(client: TestClient) -> None:
    simulated = submit(client, example1(rounds=2))
    assert post(client, simulated["id"], ROUNDS[:1]).status_code == 409
    run = external(client, experiment="flower-sweep", rounds=10)
    assert run["experiment_id"] is not None and run["progress"] == 0
    again = external(client, experiment="flower-sweep")
    assert again["experiment_id"] == run["experiment_id"]
    assert client.post(f"/api/runs/{run['id']}/cancel").json()["status"] == "cancelled"
    assert post(client, run["id"], ROUNDS[:1]).status_code == 409
    bad = client.post("/api/runs", json={"source": "external", "name": "x", "n_clients": 0})
    assert [e["loc"] for e in bad.json()["detail"]] == [["body", "n_clients"]]
    config = client.post("/api/runs", json={"config": {"rounds": 0}})
    assert [e["loc"] for e in config.json()["detail"]] == [["body", "config", "rounds"]]


@pytest.mark.parametrize(
    ("field", "value"), [("n_clients", True), ("n_clients", "5"), ("rounds", True), ("rounds", "9")]
)
def test_an_external_run_takes_numbers_as_numbers(
    client: TestClient, field: str, value: object
) -> None:
    # Before: `true` was taken for 1 and "5" for 5.
    body = {"source": "external", "name": "lax", "n_clients": 2, field: value}
    response = client.post("/api/runs", json=body)
    assert response.status_code == 422
    assert [e["loc"] for e in response.json()["detail"]] == [["body", field]]


def test_a_seed_of_true_fills_no_seed(client: TestClient) -> None:
    assert external(client, config={"seed": True})["seed"] is None  # was 1, then 0
    assert external(client, config={})["seed"] is None
    assert external(client, config={"seed": 7})["seed"] == 7
    simulated = client.post("/api/runs", json={"config": {"rounds": "100"}})
    assert simulated.status_code == 422
    assert [e["loc"] for e in simulated.json()["detail"]] == [["body", "config", "rounds"]]


def test_a_run_configs_sections_fill_the_columns_and_the_target(client: TestClient) -> None:
    config = {
        "seed": 3,
        "algorithm": {"name": "mifa", "fedavg": {}},
        "data": {"dataset": "digits"},
        "availability": {"kind": "markov"},
        "eval": {"target_acc": 0.65},
    }
    run = external(client, config=config)
    assert (run["algorithm"], run["dataset"], run["availability"], run["seed"]) == (
        "mifa", "digits", "markov", 3,
    )  # fmt: skip
    plain = external(client, config={"algorithm": "ours", "data": "mine", "eval": 2})
    assert (plain["algorithm"], plain["dataset"], plain["availability"]) == (
        "ours", "external", "external",
    )  # fmt: skip
    post(client, run["id"], ROUNDS)
    done = client.post(f"/api/runs/{run['id']}/finish", json={"status": "succeeded"}).json()
    assert done["summary"]["rounds_to_target"] == 2  # round 1 (0.7) is the first ≥ 0.65
    post(client, plain["id"], ROUNDS)
    done = client.post(f"/api/runs/{plain['id']}/finish", json={"status": "succeeded"}).json()
    assert done["summary"]["rounds_to_target"] is None


def listed_as(client: TestClient, status: str, run_id: int) -> bool:
    listed = client.get("/api/runs", params={"status": status, "limit": 500}).json()["data"]
    return run_id in [r["id"] for r in listed]


@pytest.fixture
def strict(db_url: str) -> Iterator[TestClient]:
    settings = embedded_settings(db_url, api_token="s3cret", stall_s=0.3)
    with TestClient(create_app(settings)) as c:
        yield c


def test_writes_need_the_token_and_a_silent_run_shows_as_stalled(strict: TestClient) -> None:
    declaration = {"source": "external", "name": "t", "n_clients": 3}
    assert strict.post("/api/runs", json=declaration).status_code == 401
    auth = {"Authorization": "Bearer s3cret"}
    run = strict.post("/api/runs", json=declaration, headers=auth).json()
    rounds = {"rounds": ROUNDS[:1]}
    assert strict.post(f"/api/runs/{run['id']}/rounds", json=rounds).status_code == 401
    assert strict.post(f"/api/runs/{run['id']}/finish", json={}).status_code == 401
    assert strict.get(f"/api/runs/{run['id']}").json()["rounds_done"] == 0

    def shown() -> str:
        status: str = strict.get(f"/api/runs/{run['id']}").json()["status"]
        return status

    eventually(lambda: shown() == "stalled", lambda: f"the run stalled, not {shown()}", 10)
    listed = strict.get("/api/runs").json()["data"]
    assert [r["status"] for r in listed if r["id"] == run["id"]] == ["stalled"]
    # Every answer shows the run as a read does: an edit's too (it answered `running`).
    edited = strict.patch(f"/api/runs/{run['id']}", json={"notes": "n"}, headers=auth).json()
    assert (edited["status"], edited["active"], edited["resumable"]) == ("stalled", True, False)
    # The status filter reads the shown status.
    shows = [s for s in ("stalled", "running") if listed_as(strict, s, run["id"])]
    assert shows == ["stalled"]
    sent = strict.post(f"/api/runs/{run['id']}/rounds", json=rounds, headers=auth)
    assert sent.json()["stored"] == 1
    assert strict.get(f"/api/runs/{run['id']}").json()["status"] == "running"


def test_meta_lists_the_statuses_with_their_flags(client: TestClient) -> None:
    run = external(client)  # heard from just now: running, not stalled
    assert [s for s in ("stalled", "running") if listed_as(client, s, run["id"])] == ["running"]
    statuses = {s["name"]: s for s in client.get("/api/meta").json()["statuses"]}
    assert list(statuses) == ["queued", "running", "stalled", "succeeded", "failed", "cancelled"]
    flags = {n: (s["stored"], s["active"], s["final"], s["resumable"]) for n, s in statuses.items()}
    assert flags == {
        "queued": (True, True, False, False),
        "running": (True, True, False, False),
        "stalled": (False, True, False, False),
        "succeeded": (True, False, True, False),
        "failed": (True, False, True, True),
        "cancelled": (True, False, True, True),
    }
    panels = client.get("/api/metrics/panels").json()
    assert panels[0] == {
        "name": "accuracy",
        "title": "Test accuracy",
        "y_title": "accuracy",
        "log": False,
        "description": "",  # a panel whose title says it all
    }
    in_catalogue = {
        m["panel"] for m in client.get("/api/metrics/catalog").json() if m["kind"] == "round"
    }
    assert {p["name"] for p in panels} == in_catalogue


def test_events_compare_and_ranking_read_external_runs(client: TestClient) -> None:
    ours = external(client, config={"algorithm": "ours"}, experiment="ranked")
    theirs = external(client, config={"algorithm": "theirs"}, experiment="ranked")
    post(client, ours["id"], ROUNDS)
    post(client, theirs["id"], [{**r, "metrics": {"test_acc": 0.4}} for r in ROUNDS])
    for run in (ours, theirs):
        client.post(f"/api/runs/{run['id']}/finish", json={"status": "succeeded"})

    events = client.get(f"/api/runs/{ours['id']}/events", headers={"Last-Event-ID": "0"})
    blocks = [
        dict(line.split(": ", 1) for line in b.splitlines())
        for b in events.text.split("\n\n")
        if b.strip() and not b.startswith(":")
    ]
    assert [b["event"] for b in blocks] == ["round", "round", "status"]
    assert [b["id"] for b in blocks[:2]] == ["1", "2"] and '"succeeded"' in blocks[2]["data"]

    compared = client.get("/api/compare", params={"runs": f"{ours['id']},{theirs['id']}"}).json()
    assert [g["name"] for g in compared["groups"]] == ["ours", "theirs"]
    ranked = client.get(
        "/api/runs", params={"experiment_id": ours["experiment_id"], "rank_by": "best_test_acc"}
    ).json()["data"]
    assert [r["id"] for r in ranked] == [ours["id"], theirs["id"]]


def test_a_batch_cannot_skip_ahead_beyond_its_marks_budget(client: TestClient) -> None:
    # Skipped rounds count as rounds nobody was selected in; every 32 of them a mark of
    # every client is due: 100 000 clients × 12 B × 60 marks is past the 64 MiB budget.
    run = external(client, n_clients=100_000)
    far = post(client, run["id"], [{"round": 60 * 32}])
    assert far.status_code == 409 and "too far past the last stored round -1" in far.text
    assert client.get(f"/api/runs/{run['id']}").json()["rounds_done"] == 0
    near = post(client, run["id"], [{"round": 40 * 32}])  # 40 marks, 48 MB: stored
    assert near.status_code == 200, near.text
    body = {"source": "external", "name": "big", "n_clients": 100_001}
    assert client.post("/api/runs", json=body).status_code == 422  # as simulated runs


def test_a_running_runs_comparison_has_its_participation_bias(client: TestClient) -> None:
    # The rounds aggregate p = (1, 0, 0), (0, ½, ½), (1, 0, 0): p̄ = (⅔, ⅙, ⅙); an
    # external run's data shares are taken as ⅓ each: TV = ½(⅓ + ⅙ + ⅙) = ⅓. The least
    # available client (0, there in ⅔ of the rounds like client 2: ties by id) makes ⅔
    # of the aggregate for ⅓ of the data: +⅓.
    run = external(client, experiment="bias")
    post(client, run["id"], ROUNDS)

    def compared(name: str) -> Any:
        params = {"runs": str(run["id"]), "columns": name, "group_by": "none"}
        (row,) = client.get("/api/compare", params=params).json()["table"]
        return row["stats"][name]["mean"]

    assert compared("participation_tv") == pytest.approx(1 / 3)
    assert compared("least_available_gap") == pytest.approx(1 / 3)
    client.post(f"/api/runs/{run['id']}/finish", json={"status": "succeeded"})
    finished = client.get(f"/api/runs/{run['id']}").json()["summary"]
    assert finished["participation_tv"] == pytest.approx(1 / 3) == compared("participation_tv")
    assert finished["slowest_gap"] is None  # no device times


def test_a_summary_stored_before_the_bias_values_is_compared_with_them(
    client: TestClient, db_url: str
) -> None:
    # A finished external run whose stored summary is as an older server left it (the
    # correlation gone on upgrade, no TV): the comparison reads the values from its
    # records, as the finish now stores them (⅓: see above).
    run = external(client, experiment="old bias")
    post(client, run["id"], ROUNDS)
    client.post(f"/api/runs/{run['id']}/finish", json={"status": "succeeded"})
    engine = make_engine(db_url)
    with make_sessionmaker(engine).begin() as session:
        stored = session.get_one(Run, run["id"])
        stored.summary = {k: v for k, v in (stored.summary or {}).items() if k not in BIAS}
    engine.dispose()
    params = {"runs": str(run["id"]), "columns": "participation_tv", "group_by": "none"}
    (row,) = client.get("/api/compare", params=params).json()["table"]
    assert row["stats"]["participation_tv"]["mean"] == pytest.approx(1 / 3)


# x at rounds 0..5; with a period of 4 rounds the last period is rounds 2..5:
# (3 + 4 + 5 + 9) / 4 = 5.25, the mean a simulated run's summary takes (`SummaryTracker`)
PARAMS = [{"round": t, "metrics": {"param": x}} for t, x in enumerate([1, 2, 3, 4, 5, 9])]


@pytest.mark.parametrize(
    ("period", "expected"),
    [(4, 5.25), (1, 9.0), (6, 4.0), (7, None), (None, None)],  # 7: no whole period yet
)
def test_a_declared_availability_period_gives_the_last_periods_mean(
    client: TestClient, period: int | None, expected: float | None
) -> None:
    run = external(client, availability_period=period)
    assert run["availability_period"] == period
    post(client, run["id"], PARAMS)
    params = {"runs": str(run["id"]), "columns": "period_avg_param", "group_by": "none"}

    (live,) = client.get("/api/compare", params=params).json()["table"]
    done = client.post(f"/api/runs/{run['id']}/finish", json={"status": "succeeded"}).json()

    assert done["summary"]["period_avg_param"] == expected
    assert live["stats"]["period_avg_param"]["mean"] == expected  # while it was running
    assert done["summary"]["final_param"] == 9.0


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (0, "greater than or equal to 1"),
        (-4, "greater than or equal to 1"),
        (2**31, "less than or equal to 2147483647"),
        (4.0, "valid integer"),
        ("4", "valid integer"),
        (True, "valid integer"),
    ],
)
def test_a_bad_availability_period_is_a_422_naming_it(
    client: TestClient, value: object, words: str
) -> None:
    before = client.get("/api/runs").json()["count"]
    body = {"source": "external", "name": "p", "n_clients": 2, "availability_period": value}

    response = client.post("/api/runs", json=body)

    assert response.status_code == 422, response.text
    (error,) = response.json()["detail"]
    assert error["loc"] == ["body", "availability_period"] and words in error["msg"]
    assert client.get("/api/runs").json()["count"] == before
