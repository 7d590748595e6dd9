"""Whose clock a run's times come from: a live run's are the server's (the SDK sends
none, so a client whose clock runs ahead is not refused), a replayed spool's
(`fedwatch sync`) are the ones the spool recorded when the run happened."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from fedwatch import client as sdk
from fedwatch.client import FedWatch
from fedwatch.spool import Uploader, read_spool
from tests.client.conftest import Server

CREATED = "2026-01-05T10:00:00+00:00"
FINISHED = "2026-01-05T10:00:40+00:00"
DECLARATION = {"name": "r", "n_clients": 1, "created_at": CREATED, "started_at": CREATED}


class Recorded:
    """A transport that records what it is sent."""

    url = "http://recorded"

    def __init__(self) -> None:
        self.bodies: list[tuple[str, dict[str, Any]]] = []

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        self.bodies.append((path, body))
        return {"id": 7}


@pytest.mark.parametrize("replay", [False, True])
def test_only_a_replay_sends_the_times_it_recorded(replay: bool) -> None:
    transport = Recorded()
    uploader = Uploader(transport, DECLARATION, replay=replay)  # type: ignore[arg-type]

    uploader.ensure_run()
    uploader.finish("succeeded", None, FINISHED)

    started = {"created_at": CREATED, "started_at": CREATED} if replay else {}
    finished = {"finished_at": FINISHED} if replay else {}
    assert transport.bodies == [
        ("/api/runs", {"source": "external", "name": "r", "n_clients": 1, **started}),
        ("/api/runs/7/finish", {"status": "succeeded", "message": None, **finished}),
    ]


def test_a_live_run_on_a_clock_an_hour_ahead_is_taken_with_the_servers_times(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ahead = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    monkeypatch.setattr(sdk, "timestamp", lambda: ahead)
    before = datetime.now(UTC)

    fw = FedWatch(server.url, spool_dir=tmp_path, flush_s=0.05)
    with fw.start_run("skewed", n_clients=2) as run:
        run.log_round(0, {"test_acc": 0.5})
    after = datetime.now(UTC)

    # Before: the server refused the run (422: created_at in the future).
    assert run.finished
    stored = httpx.get(f"{server.url}/api/runs/{run.id}").json()
    assert stored["status"] == "succeeded"
    for key in ("created_at", "started_at", "finished_at"):
        when = datetime.fromisoformat(stored[key])
        assert before - timedelta(seconds=1) <= when <= after + timedelta(seconds=1), key
    spooled = read_spool(run.spool_path)  # the spool keeps the client's times, for a sync
    assert (spooled.declaration["created_at"], spooled.finish) == (
        ahead,
        {"status": "succeeded", "message": None, "finished_at": ahead},
    )
