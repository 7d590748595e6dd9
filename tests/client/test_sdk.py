"""The SDK against a real `fedwatch serve`: 500 rounds read back exactly, a server
killed and restarted mid-run, a spool recorded offline and uploaded by `fedwatch sync`,
the token."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from fedwatch.cli.recording import round_entry
from fedwatch.client import FedWatch
from fedwatch.spool import read_spool
from tests.client.conftest import Server
from tests.client.rounds import Logged, views
from tests.service.servers import free_port
from worker.engine import ListSink, simulate
from worker.presets import get_preset

pytestmark = pytest.mark.slow


def fedwatch_command() -> str:
    command = shutil.which("fedwatch", path=str(Path(sys.executable).parent))
    assert command is not None
    return command


def check_views(server: Server, run_id: int, logged: Logged, rounds: int) -> None:
    with httpx.Client(base_url=server.url) as client:
        got = views(client, run_id, rounds, logged.n_clients)
        run = client.get(f"/api/runs/{run_id}").json()
    assert got["rounds"] == list(range(rounds))
    assert got["test_acc"] == logged.acc[:rounds]
    assert got["train_loss"] == [1 - a for a in logged.acc[:rounds]]
    assert got["availability"]["values"] == logged.availability()
    assert got["staleness"]["values"] == logged.staleness()
    assert (run["status"], run["rounds_done"], run["source"]) == ("succeeded", rounds, "external")
    assert run["summary"]["best_test_acc"] == max(logged.acc[:rounds])


def test_500_rounds_come_back_exactly(server: Server, tmp_path: Path) -> None:
    logged = Logged.random(500)
    fw = FedWatch(server.url, spool_dir=tmp_path / "spool", flush_s=0.05)
    with fw.start_run("sdk-500", {"lr": 0.1}, n_clients=logged.n_clients, rounds=500) as run:
        logged.log(run, range(500))
    assert run.finished and run.id is not None
    check_views(server, run.id, logged, 500)


def test_a_server_killed_and_restarted_mid_run_loses_nothing(
    server: Server, tmp_path: Path
) -> None:
    logged = Logged.random(300, seed=1)
    fw = FedWatch(server.url, spool_dir=tmp_path / "spool", flush_s=0.05)
    run = fw.start_run("restarted", {}, n_clients=logged.n_clients)
    logged.log(run, range(100))
    with httpx.Client(base_url=server.url) as client:  # the first rounds arrived
        for _ in range(600):
            if run.id and client.get(f"/api/runs/{run.id}").json()["rounds_done"] == 100:
                break
            run.sender.join(0.05)
    server.kill()
    logged.log(run, range(100, 200))  # sent while it is down, kept in the spool
    server.start()
    logged.log(run, range(200, 300))
    assert run.finish()
    assert run.id is not None
    check_views(server, run.id, logged, 300)


def test_a_spool_recorded_offline_equals_a_live_run_once_synced(
    server: Server, tmp_path: Path
) -> None:
    logged = Logged.random(120, seed=2)
    live = FedWatch(server.url, spool_dir=tmp_path / "live", flush_s=0.05)
    with live.start_run("twin", {"seed": 3}, n_clients=logged.n_clients) as run:
        logged.log(run, range(120))
    nowhere = f"http://127.0.0.1:{free_port()}"
    offline = FedWatch(nowhere, spool_dir=tmp_path / "node", flush_s=0.05, finish_timeout_s=0.5)
    with offline.start_run("twin", {"seed": 3}, n_clients=logged.n_clients) as cut_off:
        logged.log(cut_off, range(120))
    assert not cut_off.finished and cut_off.id is None

    sync = [fedwatch_command(), "sync", str(tmp_path / "node"), "--url", server.url]
    done = subprocess.run(sync, capture_output=True, text=True, timeout=120, check=True)
    assert "120 rounds, 120 new" in done.stdout
    synced_id = read_spool(cut_off.spool_path).run_ids[server.url]
    again = subprocess.run(sync, capture_output=True, text=True, timeout=120, check=True)
    assert f"run {synced_id}, 120 rounds, 0 new" in again.stdout  # the same run, unchanged

    assert run.id is not None
    check_views(server, synced_id, logged, 120)
    with httpx.Client(base_url=server.url) as client:
        one, other = (views(client, i, 120, logged.n_clients) for i in (run.id, synced_id))
        summaries = [client.get(f"/api/runs/{i}").json()["summary"] for i in (run.id, synced_id)]
    assert one == other
    for summary in summaries:
        summary.pop("wall_s"), summary.pop("client_updates_per_s")
    assert summaries[0] == summaries[1]


def test_the_token_is_enforced(tmp_path: Path) -> None:
    server = Server(tmp_path, {"FEDWATCH_API_TOKEN": "s3cret"})
    server.start()
    try:
        logged = Logged.random(5, seed=3)
        wrong = FedWatch(server.url, token="guess", spool_dir=tmp_path / "a", flush_s=0.05)
        with wrong.start_run("refused", {}, n_clients=logged.n_clients) as run:
            logged.log(run, range(5))
        assert not run.finished and run.id is None and run.error is not None
        assert len(read_spool(run.spool_path).rounds) == 5  # kept for a later sync
        right = FedWatch(server.url, token="s3cret", spool_dir=tmp_path / "b", flush_s=0.05)
        with right.start_run("taken", {}, n_clients=logged.n_clients) as run:
            logged.log(run, range(5))
        assert run.finished
    finally:
        server.kill()


def test_batches_past_the_body_limit_are_split(tmp_path: Path) -> None:
    server = Server(tmp_path, {"FEDWATCH_API_TOKEN": "", "FEDWATCH_MAX_BODY_BYTES": "6000"})
    server.start()
    try:
        logged = Logged.random(60, n_clients=40, seed=5)  # ≈ 300 bytes a round
        fw = FedWatch(server.url, spool_dir=tmp_path / "spool", flush_s=0.05, batch_rounds=60)
        run = fw.start_run("split", {}, n_clients=logged.n_clients)
        logged.log(run, range(60))
        assert run.finish()
        assert run.id is not None and run.uploader.batch_rounds < 60
        check_views(server, run.id, logged, 60)
    finally:
        server.kill()


def test_a_run_declaring_its_period_has_the_engines_last_period_mean(
    server: Server, tmp_path: Path
) -> None:
    # Example 1's availability: client 0 for 30 rounds, then client 1 for 10: a period
    # of 40 rounds, whose mean x the engine's summary gives after 100 rounds
    config = get_preset("example1").run_config(["rounds=100", "device=cpu"])
    records = ListSink()
    engine = simulate(config, records).to_dict()
    fw = FedWatch(server.url, spool_dir=tmp_path / "spool")
    ids = []
    for period in (40, 30, None):
        with fw.start_run("example1", n_clients=2, availability_period=period) as run:
            for record in records.records:
                entry = round_entry(record.to_dict())
                run.log_round(entry.pop("round"), **entry)
        ids.append(run.id)

    with httpx.Client(base_url=server.url) as client:
        got = [client.get(f"/api/runs/{i}").json()["summary"]["period_avg_param"] for i in ids]

    assert engine["period_avg_param"] is not None
    assert got[0] == engine["period_avg_param"]
    assert got[1] is not None and got[1] != got[0]  # the period declared is the one used
    assert got[2] is None
