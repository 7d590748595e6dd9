"""A small sweep for the compare and table tests: CA-Fed's synthetic setup, 20 rounds, the
per-client accuracy evaluated (so the compare table has all its columns), over two
algorithms × two client learning rates."""

from __future__ import annotations

from typing import Any

import httpx

from tests.eventually import eventually
from worker.presets import get_preset

ALGORITHMS = ["cafed", "fedavg"]
LRS = [0.01, 0.03]


def lr_sweep(server: str, name: str = "lr sweep") -> dict[str, Any]:
    """Create the sweep and wait until its 4 runs succeeded; the experiment's JSON."""
    sets = ["rounds=20", "device=cpu", "eval.client_every=5"]
    base = get_preset("cafed-synthetic").run_config(sets).model_dump(mode="json")
    body = {
        "name": name,
        "base": base,
        "grid": {"algorithm.name": ALGORITHMS, "client.lr": LRS},
        "seeds": [0],
    }
    response = httpx.post(f"{server}/api/experiments", json=body)
    assert response.status_code == 201, response.text
    experiment: dict[str, Any] = response.json()

    def succeeded() -> bool:
        runs = [httpx.get(f"{server}/api/runs/{i}").json() for i in experiment["run_ids"]]
        for run in runs:
            assert run["status"] not in ("failed", "cancelled"), run["error"]
        return all(run["status"] == "succeeded" for run in runs)

    eventually(succeeded, f"runs {experiment['run_ids']} succeeding", 180, every=0.3)
    return experiment


def runs_of(server: str, experiment: dict[str, Any]) -> list[dict[str, Any]]:
    return [httpx.get(f"{server}/api/runs/{i}").json() for i in experiment["run_ids"]]
