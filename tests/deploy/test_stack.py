"""docker-compose.yml end to end: the stack built and up with two workers (host networking
on 127.0.0.1), runs submitted through the API and executed on both workers, each equal to
an embedded run of its config in the same image, and a killed worker's run finished by the
other from its last checkpoint, and a Flower simulation recorded from an environment that
holds only the client. `make test-deploy` (CI) runs it."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.api.helpers import submit, wait_final, wait_rounds
from tests.db.databases import unavailable
from tests.deploy.stack import Stack, phase
from tests.service.test_worker import stored_rows

# a cold machine builds the base images and the image first (the module's fixture)
pytestmark = [pytest.mark.deploy, pytest.mark.slow, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[2]
FLOWER_PYTHON = REPO / ".venv-flower" / "bin" / "python"
CAFED_SEED = 12  # one seed of the preset's: its four methods, one run each
ROUNDS, CHECKPOINT_EVERY, KILL_AFTER = 3000, 100, 500


def example1(stack: Stack, **dotted: Any) -> dict[str, Any]:
    """Example 1 as the stack serves it (the image holds none of this machine's plug-ins),
    with `dotted` paths set (`eval__checkpoint_every` for eval.checkpoint_every)."""
    config: dict[str, Any] = stack.api.get("/api/presets/example1").json()["config"]
    for path, value in (dotted | {"device": "cpu"}).items():
        *parents, key = path.split("__")
        section = config
        for parent in parents:
            section = section[parent]
        section[key] = value
    return config


def test_the_image_holds_cpu_only_torch(stack: Stack) -> None:
    """torch without CUDA, and none of CUDA's packages. (torchvision is left out: where
    this machine's CPU wheel of torch is used, its torchvision is PyPI's CUDA build, which
    does not import on it; see tests/deploy/wheels.py.)"""
    probe = "import torch; print(torch.version.cuda, torch.cuda.is_available())"
    done = stack.compose("exec", "-T", "api", "python", "-c", probe)
    assert done.stdout.split() == ["None", "False"], done.stdout
    packages = stack.compose("exec", "-T", "api", "pip", "list", "--format=freeze").stdout
    assert [p for p in packages.splitlines() if p.startswith("nvidia-")] == []


def test_runs_on_both_workers_equal_embedded_runs(stack: Stack) -> None:
    with phase("example1 and a 4-run cafed-synthetic comparison"):
        first = submit(stack.api, example1(stack, rounds=120))
        response = stack.api.post(
            "/api/presets/cafed-synthetic/reproduce", json={"seeds": [CAFED_SEED]}
        )
        assert response.status_code == 201, response.text
        comparison: list[int] = response.json()["run_ids"]
        assert len(comparison) == 4
        runs = [wait_final(stack.api, run_id, timeout=300) for run_id in [first["id"], *comparison]]
    assert [(r["status"], r["error"]) for r in runs] == [("succeeded", None)] * 5
    nodes = {stack.node(container) for container in stack.containers("worker")}
    assert len(nodes) == 2 and {r["worker"] for r in runs} == nodes
    compared = stack.api.get("/api/compare", params={"runs": ",".join(map(str, comparison))})
    assert compared.status_code == 200, compared.text
    assert sorted(g["name"] for g in compared.json()["groups"]) == [
        "adafed",
        "cafed",
        "f3ast",
        "unbiased",
    ]
    with phase("the same configs embedded"):
        embedded = stack.embedded([run["config"] for run in runs])
    assert len(embedded) == len(runs)
    for run, rows in zip(runs, embedded, strict=True):
        assert stored_rows(stack.api, run["id"]) == rows, run["name"]


def test_killed_workers_run_resumes_on_the_other(stack: Stack) -> None:
    config = example1(
        stack, rounds=ROUNDS, algorithm__name="fedavg", eval__checkpoint_every=CHECKPOINT_EVERY
    )
    containers = {stack.node(c): c for c in stack.containers("worker")}
    with phase("a worker killed mid-run, its run resumed"):
        run = submit(stack.api, config)
        wait_rounds(stack.api, run["id"], KILL_AFTER, timeout=120)
        taken = stack.api.get(f"/api/runs/{run['id']}").json()["worker"]
        doomed = containers.pop(taken)
        stack.docker("kill", doomed)
        killed_at = stack.api.get(f"/api/runs/{run['id']}").json()
        done = wait_final(stack.api, run["id"], timeout=180)
    assert killed_at["status"] == "running" and killed_at["rounds_done"] < ROUNDS
    assert done["status"] == "succeeded", done["error"]
    ((survivor_node, survivor),) = containers.items()
    assert done["worker"] == survivor_node
    log = stack.logs(survivor)
    resumed = re.search(rf"run {run['id']} starts at round (\d+)", log)
    assert resumed is not None, log[-4000:]
    start = int(resumed.group(1))
    assert 0 < start <= killed_at["rounds_done"] and start % CHECKPOINT_EVERY == 0
    assert done["rounds_done"] == ROUNDS
    with phase("the same config embedded"):
        (expected,) = stack.embedded([config])
    assert stored_rows(stack.api, run["id"]) == expected


def test_a_flower_simulation_logs_into_the_stack(stack: Stack, tmp_path: Path) -> None:
    """A Flower simulation (4 nodes × 3 rounds, one failing in round 2) run from an
    environment holding only `fedwatch-client[flower]`, Flower's engine and the test tools
    (`.venv-flower`, installed from the tree by make), recorded by the deployed API."""
    if not FLOWER_PYTHON.exists():
        unavailable(f"{FLOWER_PYTHON} is missing: `make test-deploy` installs it")
    env = {
        **os.environ,
        "FEDWATCH_TEST_URL": str(stack.api.base_url).rstrip("/"),
        "FEDWATCH_TEST_SPOOL": str(tmp_path),
        "OMP_NUM_THREADS": "1",
        "RAY_DISABLE_USAGE_STATS": "1",
    }
    with phase("a Flower simulation into the stack"):
        done = subprocess.run(
            [str(FLOWER_PYTHON), "-m", "tests.flower.simulation_app"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=400,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    runs = stack.api.get("/api/runs", params={"q": "flower"}).json()["data"]
    flower = [r for r in runs if r["source"] == "external"]
    assert len(flower) == 1, runs
    (run,) = flower
    assert (run["status"], run["rounds_done"], run["n_clients"]) == ("succeeded", 3, 4)
    availability = stack.api.get(f"/api/runs/{run['id']}/availability").json()["values"]
    assert [sum(c) for c in zip(*availability, strict=True)] == [4, 3, 4]
