"""`fedwatch serve` processes for the tests: a free port, a started server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from tests.eventually import eventually


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def serve(url: str, port: int, log: Path, **env: str) -> subprocess.Popen[bytes]:
    """`fedwatch serve` in embedded mode on the database `url` (own process group),
    answering; `env` adds settings (`FEDWATCH_...`). The command is $FEDWATCH_TEST_SERVER
    where set (the Flower tests' environment holds only the client, and records into the
    main environment's server), else the `fedwatch` beside this interpreter."""
    fedwatch = os.environ.get("FEDWATCH_TEST_SERVER") or shutil.which(
        "fedwatch", path=str(Path(sys.executable).parent)
    )
    assert fedwatch is not None
    environment = {
        **os.environ,
        "FEDWATCH_DATABASE_URL": url,
        "FEDWATCH_FLUSH_SECONDS": "0.1",
        **env,
    }
    environment.pop("FEDWATCH_BROKER_URL", None)
    process = subprocess.Popen(
        [fedwatch, "serve", "--port", str(port)],
        env=environment,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )

    def answers() -> bool:
        assert process.poll() is None, log.read_text()
        try:
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
        except httpx.TransportError:
            return False
        return True

    eventually(answers, lambda: f"the server answering:\n{log.read_text()}", every=0.2)
    return process
