"""A Docker engine of the test's own: `dockerd` started as root with its own socket, pid
file and exec root in a temporary folder, no bridge and no iptables rules (containers use
the host's network), and its data root under the user's cache folder, so the images it
builds stay there for the next run. Nothing of another engine is touched; a lock keeps two
runs off one data root."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.db.databases import unavailable
from tests.eventually import eventually

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fedwatch-deploy"
READY_S = 60


def check_can_run() -> None:
    """Skip (or, where services are required, fail) where no engine can be started here."""
    missing = [tool for tool in ("dockerd", "docker", "docker-compose") if not shutil.which(tool)]
    if missing:
        unavailable(f"{', '.join(missing)} not installed (Debian: docker.io, docker-compose)")
    if os.geteuid() != 0:
        unavailable("dockerd needs root")


@contextmanager
def docker_daemon() -> Iterator[dict[str, str]]:
    """The environment under which `docker` and `docker-compose` talk to the new engine."""
    check_can_run()
    CACHE.mkdir(parents=True, exist_ok=True)
    run = Path(tempfile.mkdtemp(prefix="fedwatch-dockerd-"))
    socket = run / "docker.sock"
    try:
        with open(CACHE / "lock", "w") as lock, open(run / "dockerd.log", "w") as log:
            fcntl.flock(lock, fcntl.LOCK_EX)
            daemon = subprocess.Popen(
                [
                    "dockerd",
                    "--bridge=none",
                    "--iptables=false",
                    "--ip6tables=false",
                    f"--data-root={CACHE / 'docker'}",
                    f"--exec-root={run / 'exec'}",
                    f"--pidfile={run / 'dockerd.pid'}",
                    f"--host=unix://{socket}",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                env = {**os.environ, "DOCKER_HOST": f"unix://{socket}"}
                wait_ready(daemon, env, run / "dockerd.log")
                yield env
            finally:
                stop(daemon)
    finally:
        unmount_under(run)
        shutil.rmtree(run, ignore_errors=True)


def unmount_under(folder: Path) -> None:
    """What the engine left mounted in its exec root (its network namespace)."""
    mounts = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
    for point in sorted((m for m in mounts if m.startswith(f"{folder}/")), reverse=True):
        subprocess.run(["umount", point], capture_output=True, check=False)


def stop(daemon: subprocess.Popen[bytes]) -> None:
    daemon.send_signal(signal.SIGTERM)
    try:
        daemon.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(daemon.pid, signal.SIGKILL)
        daemon.wait()


def wait_ready(daemon: subprocess.Popen[bytes], env: dict[str, str], log: Path) -> None:
    def ready() -> bool:
        if daemon.poll() is not None:
            raise AssertionError(f"dockerd exited ({daemon.returncode}):\n{log.read_text()}")
        probe = subprocess.run(["docker", "version"], env=env, capture_output=True, check=False)
        return probe.returncode == 0

    eventually(ready, lambda: f"dockerd ready:\n{log.read_text()}", READY_S, every=0.2)
