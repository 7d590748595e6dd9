"""A throw-away Postgres cluster of a test's own: `initdb` in a temporary folder, a
server on a free port, so a test can stop and start it without touching the shared one."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.db.databases import unavailable

BINARIES = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
OWNER = "postgres"  # initdb refuses root: as root, the cluster runs as this OS user


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Cluster:
    """A cluster in `folder` serving on 127.0.0.1:`port` (trust authentication)."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.port = port
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} -c fsync=off"
        self._pg_ctl("start", "-l", str(self.folder / "server.log"), "-o", options)

    def stop(self, mode: str = "fast") -> None:
        self._pg_ctl("stop", "-m", mode)

    def is_running(self) -> bool:
        return self._pg_ctl("status", check=False) == 0

    def _pg_ctl(self, *args: str, check: bool = True) -> int:
        return self.run("pg_ctl", "-D", str(self.folder / "data"), "-w", *args, check=check)

    def run(self, binary: str, *args: str, check: bool = True) -> int:
        """Run one of the server's programs; its exit status (an error if `check`)."""
        command = [str(Path(BINARIES[-1]) / binary), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", OWNER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if check and done.returncode != 0:
            log = self.folder / "server.log"
            server = log.read_text(errors="replace") if log.exists() else ""
            raise RuntimeError(f"{binary} {' '.join(args)} failed: {done.stderr}\n{server}")
        return done.returncode


@contextmanager
def temp_cluster() -> Iterator[Cluster]:
    """A started cluster; stopped and removed afterwards, also after a failure."""
    if not BINARIES:
        unavailable("no Postgres server binaries in /usr/lib/postgresql/*/bin")
    folder = Path(tempfile.mkdtemp(prefix="fedwatch-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, OWNER, OWNER)
    cluster = Cluster(folder, free_port())
    try:
        cluster.run(
            "initdb", "-D", str(folder / "data"), "-U", "postgres", "-A", "trust", "--no-sync"
        )
        cluster.start()
        yield cluster
    finally:
        if cluster.is_running():
            cluster.stop("immediate")
        shutil.rmtree(folder, ignore_errors=True)
