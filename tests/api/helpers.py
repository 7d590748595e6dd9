"""Helpers of the API tests: settings, example configs, submit and wait."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from db.settings import Settings
from tests.eventually import eventually
from worker.engine import ListSink, run_config_for, simulate
from worker.engine.components import current
from worker.presets import get_preset

FINAL = ("succeeded", "failed", "cancelled")


def embedded_settings(url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": url,
        "broker_url": None,
        "api_token": None,
        "flush_seconds": 0.05,
        "sse_poll_s": 0.05,
    }
    return Settings(**(values | overrides))


def example1(rounds: int = 120, **assignments: Any) -> dict[str, Any]:
    """FedLaAvg's Example 1 as JSON, shortened; `algorithm__name="fedavg"` style overrides."""
    sets = [f"rounds={rounds}", "device=cpu"]
    sets += [f"{k.replace('__', '.')}={v}" for k, v in assignments.items()]
    return get_preset("example1").run_config(sets).model_dump(mode="json")


def submit(client: httpx.Client, config: dict[str, Any], notes: str = "") -> dict[str, Any]:
    response = client.post("/api/runs", json={"config": config, "notes": notes})
    assert response.status_code == 201, response.text
    run: dict[str, Any] = response.json()
    return run


def wait_final(client: httpx.Client, run_id: int, timeout: float = 120) -> dict[str, Any]:
    def final() -> dict[str, Any] | None:
        run: dict[str, Any] = client.get(f"/api/runs/{run_id}").json()
        return run if run["status"] in FINAL else None

    return eventually(final, f"run {run_id} finishing", timeout)


def wait_rounds(client: httpx.Client, run_id: int, rounds: int, timeout: float = 60) -> None:
    """Until the run has recorded at least `rounds` rounds."""
    last: dict[str, Any] = {}

    def reached() -> bool:
        last.update(client.get(f"/api/runs/{run_id}").json())
        if last["rounds_done"] >= rounds:
            return True
        assert last["status"] not in FINAL, said()  # it will not get there
        return False

    def said() -> str:
        state = f"{last['status']}, {last['rounds_done']} rounds, {last['error']}"
        return f"run {run_id} reaching round {rounds}: {state}"

    eventually(reached, said, timeout, every=0.02)


def reference(config: dict[str, Any]) -> list[dict[str, Any]]:
    """The same run, uninterrupted and in-process: its per-round scalars."""
    sink = ListSink()
    simulate(run_config_for(current()).model_validate(config), sink)
    return [{"round": r.round, **r.metrics} for r in sink.records]


def leaf_roots(root: Path, name: str, write: Callable[[Path], None], ghost_file: str) -> Path:
    """Three data roots of the LEAF dataset `name` under `root`, each written by `write`:
    `whole/` as it is, `half/` with its test split removed, and `ghost/` with a user
    listed in `users` of its train file `ghost_file` without data."""
    for folder in ("whole", "half", "ghost"):
        write(root / folder)
    for file in (root / "half" / name / "data" / "test").iterdir():
        file.unlink()
    path = root / "ghost" / name / "data" / "train" / ghost_file
    doc = json.loads(path.read_text())
    doc["users"].append("nobody")
    doc["num_samples"].append(1)
    path.write_text(json.dumps(doc))
    return root
