"""Runs of the CLI in a real `fedwatch serve`: a `compare` folder uploaded by `fedwatch
import` (every run, every round, every client view, and nothing twice), and `simulate
--server` recording a run as it runs."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from fedwatch.command import main
from tests.client.conftest import Server
from tests.client.rounds import views
from tests.client.test_sdk import fedwatch_command
from tests.eventually import eventually
from tests.service.servers import free_port

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path, {"FEDWATCH_API_TOKEN": "", "FEDWATCH_EMBEDDED_CONCURRENCY": "1"})
    running.start()
    yield running
    if running.process is not None:
        running.kill()


def matrix(rounds: list[dict[str, Any]], n_clients: int, field: str) -> list[list[float]]:
    """Clients × rounds: 1 where the client is in the round's `field`."""
    out = np.zeros((n_clients, len(rounds)))
    for t, r in enumerate(rounds):
        out[r[field], t] = 1
    return out.tolist()


def staleness(rounds: list[dict[str, Any]], n_clients: int) -> list[list[float]]:
    """u − L_k(u), L_k(u) the client's last selection at or before u (−1 before)."""
    last = np.full(n_clients, -1)
    out = np.zeros((n_clients, len(rounds)))
    for t, r in enumerate(rounds):
        last[r["selected"]] = t
        out[:, t] = t - last
    return out.tolist()


def test_import_of_a_compare_folder_shows_every_run_with_its_client_views(
    server: Server, tmp_path: Path
) -> None:
    out = tmp_path / "cafed"
    sets = ["--set", "rounds=6", "--set", "eval.client_every=3"]
    args = ["compare", "cafed-synthetic", "--seeds", "1", "--jobs", "1", "--out", str(out)]
    assert main([*args, *sets]) == 0
    files = {p.stem: json.loads(p.read_text()) for p in out.glob("*-seed*.json")}

    assert main(["import", str(out), "--server", server.url]) == 0

    with httpx.Client(base_url=server.url) as api:
        (experiment,) = api.get("/api/experiments").json()["data"]
        params = {"experiment_id": experiment["id"], "limit": 100}
        runs = {r["name"]: r for r in api.get("/api/runs", params=params).json()["data"]}
        assert experiment["name"] == "cafed"
        assert sorted(runs) == sorted(f"cafed-synthetic {stem}" for stem in files)
        for stem, record in files.items():
            run = runs[f"cafed-synthetic {stem}"]
            rounds, n = record["rounds"], record["config"]["data"]["n_clients"]
            assert (run["status"], run["rounds_done"], run["n_clients"]) == ("succeeded", 6, n)
            assert run["algorithm"] == record["config"]["algorithm"]["name"]
            assert run["seed"] == record["config"]["seed"] == 12
            got = views(api, run["id"], len(rounds), n)
            size = {"max_rounds": len(rounds), "max_clients": n}
            selection = api.get(f"/api/runs/{run['id']}/selection", params=size).json()
            accuracy = api.get(f"/api/runs/{run['id']}/client-accuracy").json()
            assert got["rounds"] == list(range(6))
            assert got["test_acc"] == [r["test_acc"] for r in rounds if "test_acc" in r]
            assert got["train_loss"] == [r["train_loss"] for r in rounds]
            assert got["availability"]["values"] == matrix(rounds, n, "available")
            assert selection["values"] == matrix(rounds, n, "selected")
            assert got["staleness"]["values"] == staleness(rounds, n)
            last = max(t for t, r in enumerate(rounds) if "client_acc" in r)
            assert accuracy["round"] == last
            assert accuracy["values"] == pytest.approx(rounds[last]["client_acc"])

    assert main(["import", str(out), "--server", server.url]) == 0  # again: nothing new
    with httpx.Client(base_url=server.url) as api:
        assert api.get("/api/runs").json()["count"] == len(files)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing", "not a folder"),
        (lambda d: d, "neither table.json nor report.json"),
        (lambda d: (d / "table.json").write_text("{}") and d, "no run files"),
    ],
)
def test_a_wrong_folder_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, message: str
) -> None:
    assert main(["import", str(make(tmp_path)), "--server", "http://127.0.0.1:1"]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("clients", "message"),
    [
        (
            {"availability_period": 2.5},
            "round 0's availability_period 2.5 is not a whole number ≥ 1",
        ),
        (
            {"availability_period": "4"},
            "round 0's availability_period '4' is not a whole number ≥ 1",
        ),
        ({"availability_period": 0}, "round 0's availability_period 0 is not a whole number ≥ 1"),
        (
            {"availability_period": True},
            "round 0's availability_period True is not a whole number ≥ 1",
        ),
        ([1, 2], "round 0's clients are not an object of facts"),
    ],
)
def test_a_run_file_with_a_bad_period_is_named_and_nothing_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], clients: Any, message: str
) -> None:
    (tmp_path / "report.json").write_text("{}")
    run = {
        "config": {"data": {"n_clients": 2}},
        "summary": {},
        "rounds": [{"round": 0, "clients": clients}],
    }
    (tmp_path / "fedavg.json").write_text(json.dumps(run))

    assert main(["import", str(tmp_path), "--server", "http://127.0.0.1:1"]) == 2
    assert f"fedavg.json: {message}" in capsys.readouterr().err
    assert not (tmp_path / ".fedwatch-import").exists()


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ({"config": [], "summary": {}, "rounds": []}, "its config is not an object"),
        ({"config": {}, "summary": None, "rounds": []}, "its summary is not an object"),
        ({"config": {}, "summary": {}, "rounds": 5}, "its rounds is not a list"),
        ({"config": {"data": 3}, "summary": {}, "rounds": []}, "its config has no data.n_clients"),
        (
            {"config": {"data": {"n_clients": 2}}, "summary": {}, "rounds": [{"round": 0}, []]},
            "its rounds' entry 1 has no round number",
        ),
        (
            {
                "config": {"data": {"n_clients": 2}},
                "summary": {},
                "rounds": [{"round": 0}, {"round": 1}, {"round": "2"}],
            },
            "its rounds' entry 2 has no round number",
        ),
        (
            {
                "config": {"data": {"n_clients": 2}},
                "summary": {},
                "rounds": [{"round": 0, "wall_s": "3"}],
            },
            "round 0's wall_s '3' is not a number",
        ),
        (
            {
                "config": {"data": {"n_clients": 2}},
                "summary": {},
                "rounds": [{"round": 4, "test_acc": "x"}],
            },
            "round 4 holds a metric that is not a number (could not convert string to float: 'x')",
        ),
        (
            {
                "config": {"data": {"n_clients": 2}},
                "summary": {},
                "rounds": [{"round": 0, "client_acc": 7}],
            },
            "round 0 holds a metric that is not a number",
        ),
    ],
)
def test_a_run_file_of_the_wrong_shape_is_named_with_the_place_and_nothing_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], run: dict[str, Any], message: str
) -> None:
    (tmp_path / "report.json").write_text("{}")
    (tmp_path / "fedavg.json").write_text(json.dumps(run))

    assert main(["import", str(tmp_path), "--server", "http://127.0.0.1:1"]) == 2
    assert f"fedavg.json: {message}" in capsys.readouterr().err
    assert not (tmp_path / ".fedwatch-import").exists()


def test_a_file_that_is_no_run_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "report.json").write_text("{}")
    (tmp_path / "notes.json").write_text('{"config": {}}')

    assert main(["import", str(tmp_path), "--server", "http://127.0.0.1:1"]) == 2
    assert "notes.json: not a run file of compare or reproduce (no summary, rounds)" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / ".fedwatch-import").exists()  # nothing written, nothing sent


def test_simulate_with_a_server_records_the_run_as_it_runs(server: Server, tmp_path: Path) -> None:
    command = [fedwatch_command(), "simulate", "example1", "--set", "rounds=2000"]
    env = {"FEDWATCH_URL": server.url, "HOME": str(tmp_path)}  # the SDK's spool under HOME
    process = subprocess.Popen(
        command, env={**os.environ, **env}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    with httpx.Client(base_url=server.url) as api:

        def recorded_while_running() -> int | None:  # a round arrives while it runs
            assert process.poll() is None, "the run ended before a round was seen running"
            found = api.get("/api/runs").json()["data"]
            running = found and found[0]["status"] == "running"
            return found[0]["rounds_done"] if running and found[0]["rounds_done"] > 0 else None

        seen = eventually(recorded_while_running, "a round recorded while the run runs", 120)
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
        (run,) = api.get("/api/runs").json()["data"]
        series = api.get(f"/api/runs/{run['id']}/metrics", params={"max_points": 2000}).json()
    assert seen < 2000
    assert f"example1: recorded as run {run['id']} at {server.url}" in stderr
    assert (run["status"], run["rounds_done"], run["algorithm"]) == ("succeeded", 2000, "fedlaavg")
    summary = json.loads(stdout)
    assert series["series"]["param"]["last"][-1] == pytest.approx(summary["final_param"])
    assert run["summary"]["final_param"] == pytest.approx(summary["final_param"])


def simulate_example1(url: str, home: Path) -> dict[str, Any]:
    """`fedwatch simulate example1` of 100 rounds recorded into `url`: its local summary."""
    command = [fedwatch_command(), "simulate", "example1", "--set", "rounds=100"]
    env = {**os.environ, "HOME": str(home)}  # the SDK's spool under HOME
    done = subprocess.run(
        [*command, "--server", url], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    summary: dict[str, Any] = json.loads(done.stdout)
    return summary


def test_a_simulated_run_has_its_local_last_period_mean_live_or_synced(
    server: Server, tmp_path: Path
) -> None:
    # Example 1's availability repeats every 30 + 10 rounds: the server must average x
    # over the same last 40 rounds as the local summary
    live = simulate_example1(server.url, tmp_path / "live")
    offline = simulate_example1(f"http://127.0.0.1:{free_port()}", tmp_path / "offline")
    spools = tmp_path / "offline" / ".cache" / "fedwatch" / "spool"
    sync = [fedwatch_command(), "sync", str(spools), "--url", server.url]
    subprocess.run(sync, capture_output=True, text=True, timeout=120, check=True)

    with httpx.Client(base_url=server.url) as api:
        runs = api.get("/api/runs").json()["data"]
        got = [api.get(f"/api/runs/{r['id']}").json() for r in reversed(runs)]

    assert live["period_avg_param"] == pytest.approx(0.0833, abs=1e-4)
    assert offline["period_avg_param"] == live["period_avg_param"]
    assert [r["status"] for r in got] == ["succeeded", "succeeded"]
    assert [r["summary"]["period_avg_param"] for r in got] == [live["period_avg_param"]] * 2
    assert [r["availability_period"] for r in got] == [40, 40]


def test_import_carries_the_period_of_round_0(server: Server, tmp_path: Path) -> None:
    out = tmp_path / "example1"
    args = ["compare", "example1", "--seeds", "1", "--jobs", "1", "--out", str(out)]
    assert main([*args, "--set", "rounds=100"]) == 0
    files = {p.stem: json.loads(p.read_text()) for p in out.glob("*-seed*.json")}

    assert main(["import", str(out), "--server", server.url]) == 0

    with httpx.Client(base_url=server.url) as api:
        runs = {r["name"]: r for r in api.get("/api/runs").json()["data"]}
        assert len(runs) == len(files)
        for stem, record in files.items():
            run = api.get(f"/api/runs/{runs[f'example1 {stem}']['id']}").json()
            local = record["summary"]["period_avg_param"]
            assert local is not None and run["summary"]["period_avg_param"] == local
            assert run["availability_period"] == 40
