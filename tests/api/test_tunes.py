"""Tunes through the API: refusals that name the key and create nothing, and a whole
tune whose trials and final runs are ordinary runs, found by their tags."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from tests.api.helpers import embedded_settings
from worker.engine.resources import estimate
from worker.presets import get_preset

TINY = ["rounds=3", "device=cpu"]
BODY: dict[str, Any] = {
    "preset": "cafed-synthetic",
    "methods": ["cafed", "unbiased"],
    "space": ["client.lr=log:1e-3:1"],
    "trials": 3,
    "seeds": 2,
    "sampler": "random",
    "pruner": "none",
    "set": TINY,
}


def wait_done(client: TestClient, tune_id: int, timeout: float = 240) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tune: dict[str, Any] = client.get(f"/api/tunes/{tune_id}").json()
        if tune["status"] == "done":
            return tune
        time.sleep(0.1)
    raise AssertionError(f"tune {tune_id} not done in {timeout} s: {tune['progress']}")


@pytest.mark.parametrize(
    ("change", "loc", "words"),
    [
        ({"space": ["client.lrr=log:1e-3:1"]}, ["body", "space", "client", "lrr"], "Extra inputs"),
        ({"space": ["client.lr=log:1:0.1"]}, ["body", "space", "client", "lr"], "inverted"),
        ({"space": ["client.lr=linear:0.1:0.1"]}, ["body", "space", "client", "lr"], "empty"),
        (
            {"space": {"client.lr": {"kind": "linear", "low": -1, "high": 1}}},
            ["body", "space", "client", "lr"],
            "greater than 0",
        ),
        ({"objective": "final_test_acc"}, ["body", "objective"], "validation split"),
        ({"preset": "nope"}, ["body", "preset"], "unknown preset"),
        ({"methods": ["cafed", "cafed"]}, ["body", "methods", 1], "twice"),
    ],
)
def test_a_bad_tune_names_the_key_and_creates_nothing(
    client: TestClient, change: dict[str, Any], loc: list[Any], words: str
) -> None:
    before = client.get("/api/tunes").json()["count"], client.get("/api/runs").json()["count"]

    response = client.post("/api/tunes", json=BODY | change)

    assert response.status_code == 422, response.text
    (error,) = response.json()["detail"]
    assert error["loc"] == loc and words in error["msg"]
    after = client.get("/api/tunes").json()["count"], client.get("/api/runs").json()["count"]
    assert after == before


def test_an_objective_a_method_does_not_record(client: TestClient) -> None:
    # Example 1's scalar model is a regression: no accuracy, on validation or elsewhere
    body = {"preset": "example1", "space": ["client.lr=linear:0.1:0.9"], "set": TINY}

    response = client.post("/api/tunes", json=body)

    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["loc"] == ["body", "objective"]
    assert error["msg"] == "fedavg records no final_val_acc"


def test_a_budget_over_the_limit_names_trials(db_url: str) -> None:
    # each run of 3 rounds costs w FLOP; the budget is (3 trials + 2 finals) x 2 methods
    # runs: a limit just under that refuses it
    runs = [get_preset("cafed-synthetic").run_config([f"algorithm.name={m}", *TINY,
            "eval.validation=0.2"]) for m in ("cafed", "unbiased")]  # fmt: skip
    work = sum((3 + 2) * estimate(c, held_rounds=0, held_states=0).flops for c in runs)
    tight = embedded_settings(db_url, max_tune_gflop=work / 1e9 * 0.99)
    with TestClient(create_app(tight)) as client:
        before = client.get("/api/tunes").json()["count"]

        response = client.post("/api/tunes", json=BODY)

        assert response.status_code == 422
        (error,) = response.json()["detail"]
        assert error["loc"] == ["body", "trials"]
        assert error["msg"].startswith("the budget (3 trials + 2 final runs for each of 2 methods)")
        assert "FEDWATCH_MAX_TUNE_GFLOP" in error["msg"]
        assert client.get("/api/tunes").json()["count"] == before


@pytest.mark.slow
def test_a_whole_tune_is_ordinary_runs(client: TestClient) -> None:
    created = client.post("/api/tunes", json=BODY)
    assert created.status_code == 201, created.text
    tune_id = created.json()["id"]
    early = client.get(f"/api/tunes/{tune_id}/tables")
    assert early.status_code == 409 and "tuning" in early.json()["detail"]

    tune = wait_done(client, tune_id)

    # every method met its budget of 3 completed trials, each a run tagged with its state
    assert [(p["method"], p["complete"], p["failed"]) for p in tune["progress"]] == [
        ("cafed", 3, 0),
        ("unbiased", 3, 0),
    ]
    runs = client.get("/api/runs", params={"tag": f"tune:{tune_id}", "limit": 100}).json()
    assert runs["count"] == 2 * 3 + 2 * 2
    tagged = {r["id"] for r in runs["data"]}
    for trial in tune["trials"]:
        run = client.get(f"/api/runs/{trial['run_id']}").json()
        assert {f"trial:{trial['number']}", "state:complete", f"method:{trial['method']}"} <= set(
            run["tags"]
        )
        # the trial's value is its run's validation accuracy, with the trial's lr
        assert trial["value"] == run["summary"]["final_val_acc"]
        assert run["config"]["client"]["lr"] == trial["params"]["client.lr"]
        assert run["config"]["eval"]["validation"] == 0.2 and run["config"]["seed"] == 0
    # the final comparison: an ordinary experiment of each method's best lr on seeds 1, 2
    experiment = client.get(f"/api/experiments/{tune['experiment_id']}").json()
    assert experiment["progress"]["by_status"] == {"succeeded": 4}
    for progress in tune["progress"]:
        best = max(t["value"] for t in tune["trials"] if t["method"] == progress["method"])
        assert progress["best_value"] == best
        assert set(experiment["run_ids"]) <= tagged
        finals = [client.get(f"/api/runs/{i}").json() for i in experiment["run_ids"]]
        finals = [r for r in finals if r["algorithm"] == progress["method"]]
        assert sorted(r["seed"] for r in finals) == [1, 2]
        assert {r["config"]["client"]["lr"] for r in finals} == {
            progress["best_params"]["client.lr"]
        }
        assert {r["config"]["eval"]["validation"] for r in finals} == {0}
    assert tune["importances"] == {"cafed": {"client.lr": 1.0}, "unbiased": {"client.lr": 1.0}}
    lrs, values = tune["parallel"]["cafed"]
    assert lrs["label"] == "client.lr" and values["label"] == "final_val_acc"
    assert len(lrs["values"]) == len(values["values"]) == 3
    assert tune["protocol"].startswith("Each method tuned over 3 trials on validation")
    listed = client.get("/api/tunes").json()
    assert tune_id in [t["id"] for t in listed["data"]]
    tables = client.get(f"/api/tunes/{tune_id}/tables", params={"format": "md"})
    assert tables.status_code == 200
    assert tune["protocol"] in tables.text and tune["flags"] == []
    for p in tune["progress"]:  # the settings table's rows, as the command writes them
        lr, best = p["best_params"]["client.lr"], p["best_value"]
        assert f"| {p['method']} | {lr:.4g} | {best:.4g} | 3 | 0 | 0 |" in tables.text
    assert "| CA-Fed (reference) |" in tables.text and "| wall time (s) |" in tables.text
    # the comparison's arguments, as `GET /api/compare` takes them
    shaped = {
        "reference": ("unbiased", "| Unbiased (reference) |"),
        "labels": ("cafed:Ours\\, tuned", "| Ours, tuned (reference) |"),
        "columns": ("final_test_acc,best_test_acc", "| group | final acc (%) | best acc (%) |\n"),
    }
    for name, (value, line) in shaped.items():
        got = client.get(f"/api/tunes/{tune_id}/tables", params={"format": "md", name: value})
        assert got.status_code == 200 and line in got.text and line not in tables.text
        assert got.text.endswith(tables.text.split("\n\n")[-1])  # the same settings
    for name, value, words in (
        ("reference", "fedavg", "'fedavg' is not one of the groups"),
        ("labels", "fedavg:FedAvg", "'fedavg' is not one of the groups"),
        ("labels", "cafed", "'cafed': expected GROUP:NAME"),
        ("columns", "final_test_acc,nope", "nope"),
    ):
        got = client.get(f"/api/tunes/{tune_id}/tables", params={name: value})
        assert got.status_code == 422, got.text
        (error,) = got.json()["detail"]
        assert error["loc"] == ["query", name] and words in error["msg"]


def test_tables_wait_for_the_end(client: TestClient) -> None:
    assert client.get("/api/tunes/999999/tables").status_code == 404


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("alpha", "1.5", "less than 1"),
        ("alpha", "0", "greater than 0"),
        ("alpha", "often", "valid number"),
        ("columns", "final_test_acc,nope", "nope"),
        ("columns", "final test acc", "String should match pattern"),
    ],
)
def test_a_bad_table_argument_is_a_422_naming_it(
    client: TestClient, name: str, value: str, words: str
) -> None:
    response = client.get("/api/tunes/999999/tables", params={name: value})

    assert response.status_code == 422, response.text
    (error,) = response.json()["detail"]
    assert error["loc"] == ["query", name] and words in error["msg"]
