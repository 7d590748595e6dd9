"""SIGTERM to the embedded server: its streams end, queued runs stay queued, the running
run stops with a checkpoint where it stopped, and the process exits; the next start
finishes both runs as if nothing happened."""

from __future__ import annotations

import signal
import socket
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from db.models import Checkpoint, Run
from db.session import make_engine, make_sessionmaker
from tests.api.helpers import example1, reference, submit, wait_final, wait_rounds
from tests.service.servers import free_port, serve
from tests.service.test_worker import stored_rows

pytestmark = pytest.mark.service


def abandoned_stream(port: int, run_id: int) -> socket.socket:
    """A viewer that opens the run's event stream and never reads it."""
    viewer = socket.create_connection(("127.0.0.1", port))
    request = f"GET /api/runs/{run_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    viewer.sendall(request.encode())
    return viewer


def test_sigterm_stops_streams_and_runs_and_the_next_start_finishes_them(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'fedwatch.sqlite3'}"
    port, log = free_port(), tmp_path / "serve.log"
    api = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10)
    # No periodic checkpoint: the one a resume starts from is the one taken at SIGTERM.
    config = example1(4000, algorithm__name="fedavg", eval__checkpoint_every=1_000_000)
    server = serve(url, port, log, FEDWATCH_EMBEDDED_CONCURRENCY="1")
    try:
        running = submit(api, config)
        waiting = submit(api, example1(50))
        wait_rounds(api, running["id"], 500)
        viewer = abandoned_stream(port, running["id"])
        server.send_signal(signal.SIGTERM)  # the server alone: it stops its runs itself
        server.wait(timeout=20)
        viewer.settimeout(5)
        while viewer.recv(65536):  # until the server closed the stream
            pass
    finally:
        if server.poll() is None:
            server.kill()
    engine = make_engine(url)
    with make_sessionmaker(engine)() as session:
        stopped = session.get_one(Run, running["id"])
        checkpoint = session.scalar(
            select(Checkpoint.round).where(Checkpoint.run_id == running["id"])
        )
        never_started = session.get_one(Run, waiting["id"])
        assert (stopped.status, stopped.crashes) == ("queued", 0)
        assert 500 <= stopped.rounds_done < 4000
        assert checkpoint == stopped.rounds_done
        assert (never_started.status, never_started.started_at) == ("queued", None)
    engine.dispose()
    server = serve(url, port, log)
    try:
        done = wait_final(api, running["id"])
        assert wait_final(api, waiting["id"])["status"] == "succeeded"
        assert f"run {running['id']} starts at round {checkpoint} " in log.read_text()
        assert (done["status"], done["rounds_done"]) == ("succeeded", 4000)
        assert stored_rows(api, running["id"]) == reference(config)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
