"""The SDK with its server down: one line on stderr at the first failed send, an exit
within `finish_timeout_s` with every round and the end in the spool, and a spool synced
later that keeps the times the run really happened and no seed it was not given."""

from __future__ import annotations

import select
import socket
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest

from fedwatch.client import FedWatch
from fedwatch.spool import Spool, read_spool
from tests.client.conftest import Server
from tests.client.test_sdk import fedwatch_command
from tests.service.servers import free_port

pytestmark = pytest.mark.slow

# A training script: 5 rounds, then it waits for a line on stdin before its run ends.
SCRIPT = """
import sys
from fedwatch.client import FedWatch

fw = FedWatch(sys.argv[1], spool_dir=sys.argv[2], flush_s=0.05)
with fw.start_run("offline", {"lr": 0.1}, n_clients=4) as run:
    for t in range(5):
        run.log_round(t, {"test_acc": t / 10}, selected=[t % 4], weights=[1.0])
    sys.stdin.readline()
    for t in range(5, 8):
        run.log_round(t, {"test_acc": t / 10}, selected=[t % 4], weights=[1.0])
"""
DEFAULT_FINISH_S = 10.0  # FedWatch(finish_timeout_s=...)'s default, the stated time


def test_a_run_whose_server_is_down_says_so_once_and_exits_within_the_stated_time(
    tmp_path: Path,
) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}"  # a closed port
    spool_dir = tmp_path / "spool"
    child = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, nowhere, str(spool_dir)],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stderr is not None
    # During the run, before its end: the first failed send (a generous bound, not a
    # timing: without the line the child waits on its stdin for good).
    if not select.select([child.stderr], [], [], 120)[0]:
        child.kill()
        pytest.fail("nothing on stderr while the run goes on")
    said = child.stderr.readline()
    (path,) = spool_dir.glob("*.jsonl")
    assert said.startswith(f"fedwatch: {nowhere} unreachable")
    assert f"spooling the run to {path}" in said
    assert f"fedwatch sync {spool_dir} --url {nowhere}" in said

    began = time.monotonic()
    child.stdin.write("\n")
    child.stdin.flush()
    assert child.wait(timeout=120) == 0
    took = time.monotonic() - began
    assert took < DEFAULT_FINISH_S + 10, f"exit took {took:.1f} s"  # 50-60 s before
    assert child.stderr.read() == ""  # nothing more on stderr
    spooled = read_spool(path)
    assert [r["round"] for r in spooled.rounds] == list(range(8))
    assert spooled.finish is not None and spooled.finish["status"] == "succeeded"


def test_finish_spools_every_round_and_the_end_before_it_returns(tmp_path: Path) -> None:
    """A server that takes the connection and never answers holds the sender in its
    request; with no time to wait, `finish` returns at once all the same, the rounds
    and the end in the spool already."""
    with socket.create_server(("127.0.0.1", 0)) as silent:
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        fw = FedWatch(url, spool_dir=tmp_path, flush_s=0.01, timeout_s=60, finish_timeout_s=0)
        run = fw.start_run("quick", n_clients=2)
        run.log_round(0, {"a": 0.0})
        request, _ = silent.accept()  # the sender's request, open and left unanswered
        for t in range(1, 3):
            run.log_round(t, {"a": float(t)})
        began = time.monotonic()
        assert run.finish("failed", "stopped") is False
        took = time.monotonic() - began
        spooled = read_spool(run.spool_path)
        request.close()
    assert took < 30, f"finish took {took:.1f} s"  # the request's 60 s before
    assert [r["round"] for r in spooled.rounds] == [0, 1, 2]
    assert spooled.finish is not None
    assert (spooled.finish["status"], spooled.finish["message"]) == ("failed", "stopped")


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_a_synced_spool_keeps_its_times_and_has_no_seed(server: Server, tmp_path: Path) -> None:
    """A spool written two days ago (times in it as the SDK writes them) keeps those
    times on the server: created, started, finished, and the wall time between."""
    created = "2026-01-05T10:00:00+00:00"
    finished = "2026-01-05T10:00:40+00:00"
    declaration = {"name": "old", "config": {"lr": 0.1}, "n_clients": 2, "experiment": None,
                   "rounds": 2, "created_at": created, "started_at": created}  # fmt: skip
    spool = Spool.create(tmp_path, declaration)
    spool.append([{"kind": "round", "round": t, "metrics": {"test_acc": 0.5}} for t in (0, 1)])
    spool.append([{"kind": "finish", "status": "succeeded", "message": None,
                   "finished_at": finished}])  # fmt: skip

    sync = [fedwatch_command(), "sync", str(tmp_path), "--url", server.url]
    subprocess.run(sync, capture_output=True, text=True, timeout=120, check=True)
    run_id = read_spool(spool.path).run_ids[server.url]
    with httpx.Client(base_url=server.url) as client:
        run = client.get(f"/api/runs/{run_id}").json()
        listed = client.get("/api/runs", params={"q": "old"}).json()
    assert _when(run["created_at"]) == _when(created)
    assert _when(run["started_at"]) == _when(created)
    assert _when(run["finished_at"]) == _when(finished)
    assert run["summary"]["wall_s"] == 40.0  # no round reported a time: start to finish
    assert run["seed"] is None
    assert [(r["id"], r["seed"]) for r in listed["data"]] == [(run_id, None)]


REFUSED: list[tuple[str, object, str]] = [
    ("created_at", "2999-01-01T00:00:00+00:00", "in the future"),
    ("created_at", "2026-01-05T10:00:00", "timezone"),
    ("created_at", 0, "RFC 3339"),  # not seconds since 1970, as pydantic would read it
    ("created_at", "0", "RFC 3339"),
    ("started_at", "2026-01-05T09:59:59+00:00", "before created_at"),
]


def test_times_the_ingest_refuses(server: Server) -> None:
    with httpx.Client(base_url=server.url) as client:
        for field, value, msg in REFUSED:
            body = {"source": "external", "name": "x", "n_clients": 1,
                    "created_at": "2026-01-05T10:00:00+00:00", field: value}  # fmt: skip
            answer = client.post("/api/runs", json=body)
            assert (answer.status_code, msg in answer.text) == (422, True), (field, value)
        start = datetime.fromisoformat("2026-01-05T10:00:00+00:00")
        body = {"source": "external", "name": "x", "n_clients": 1, "started_at": start.isoformat()}
        run_id = client.post("/api/runs", json=body).json()["id"]
        early = (start - timedelta(seconds=1)).isoformat()
        answer = client.post(f"/api/runs/{run_id}/finish", json={"finished_at": early})
        assert answer.status_code == 422
        assert "before the run started" in answer.text
        done = client.post(f"/api/runs/{run_id}/finish", json={"finished_at": start.isoformat()})
    assert done.status_code == 200
    assert _when(done.json()["finished_at"]) == start
