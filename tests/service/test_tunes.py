"""Tunes scaled out: the server asks Optuna (its study on Postgres) for trials, Celery
workers execute their runs. Two workers share the study and no trial runs twice; a
worker killed mid-trial fails its trial, which is replaced, and the budget is met."""

from __future__ import annotations

import os
import re
import signal
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.service.conftest import StartWorker

pytestmark = [pytest.mark.service, pytest.mark.slow]


def body(trials: int, rounds: int, parallel: int) -> dict[str, Any]:
    return {
        "preset": "cafed-synthetic",
        "methods": ["unbiased"],
        "space": ["client.lr=log:1e-3:1"],
        "trials": trials,
        "seeds": 1,
        "sampler": "random",
        "pruner": "none",
        "parallel": parallel,
        "set": [f"rounds={rounds}", "device=cpu"],
    }


def create(api: TestClient, request: dict[str, Any]) -> dict[str, Any]:
    response = api.post("/api/tunes", json=request)
    assert response.status_code == 201, response.text
    tune: dict[str, Any] = response.json()
    return tune


def wait_done(api: TestClient, tune_id: int, timeout: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tune: dict[str, Any] = api.get(f"/api/tunes/{tune_id}").json()
        if tune["status"] == "done":
            return tune
        time.sleep(0.2)
    raise AssertionError(f"tune {tune_id} not done in {timeout} s: {tune['progress']}")


def starts(log: str) -> list[int]:
    """The runs a worker's log says it started from round 0."""
    return [int(m) for m in re.findall(r"run (\d+) starts at round 0 ", log)]


def test_two_workers_share_one_study_and_no_trial_runs_twice(
    api: TestClient, start_worker: StartWorker
) -> None:
    a, b = start_worker("a"), start_worker("b")

    tune = wait_done(api, create(api, body(trials=6, rounds=20, parallel=2))["id"])

    (progress,) = tune["progress"]
    assert (progress["complete"], progress["failed"]) == (6, 0)
    trial_runs = [t["run_id"] for t in tune["trials"]]
    assert sorted(t["number"] for t in tune["trials"]) == list(range(6))
    assert len(set(trial_runs)) == 6  # one run a trial
    started = starts(a.output()) + starts(b.output())
    assert all(started.count(r) == 1 for r in trial_runs)  # each executed once, by one worker
    workers = {api.get(f"/api/runs/{r}").json()["worker"] for r in trial_runs}
    assert workers == {"a@test", "b@test"}


def test_a_worker_killed_mid_trial_fails_it_and_the_budget_is_met(
    api: TestClient, start_worker: StartWorker
) -> None:
    doomed = start_worker("doomed", FEDWATCH_VISIBILITY_TIMEOUT_S="3600")
    tune_id = create(api, body(trials=3, rounds=400, parallel=1))["id"]
    deadline = time.monotonic() + 120
    while True:  # the first trial's run is under way on the doomed worker
        trials = api.get(f"/api/tunes/{tune_id}").json()["trials"]
        run = api.get(f"/api/runs/{trials[0]['run_id']}").json() if trials else {}
        if run.get("rounds_done", 0) > 0:
            break
        assert time.monotonic() < deadline, "the first trial never started"
        time.sleep(0.1)
    os.killpg(doomed.process.pid, signal.SIGKILL)
    doomed.process.wait()
    start_worker("sweeper", FEDWATCH_LEASE_S="5", FEDWATCH_SWEEP_INTERVAL_S="0.5")

    tune = wait_done(api, tune_id)

    (progress,) = tune["progress"]
    assert (progress["complete"], progress["failed"]) == (3, 1)
    failed = next(t for t in tune["trials"] if t["state"] == "failed")
    assert failed["run_id"] == run["id"] and "executor died" in failed["error"]
    killed = api.get(f"/api/runs/{run['id']}").json()
    assert killed["status"] == "cancelled" and "state:failed" in killed["tags"]
