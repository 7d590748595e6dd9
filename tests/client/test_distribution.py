"""`pip install ./client` in a fresh environment: it installs the client and nothing
else, and the SDK and `fedwatch sync` work there against a real server. The full
distribution's files go beside the client's, and uninstalling it leaves the client whole.

pip builds from a clean copy of the tree's sources, as from a fresh checkout (in place,
setuptools would reuse whatever an earlier build left in `build/`); the build needs only
setuptools, from the configured index."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import httpx
import pytest

from tests.client.conftest import Server

REPO = Path(__file__).resolve().parents[2]
# A spool written in the fresh environment: a run of 3 clients, 3 rounds, finished.
SPOOL = """
import sys
from pathlib import Path
from fedwatch.spool import Spool

spool = Spool.create(Path(sys.argv[1]), {"name": "offline", "config": {"lr": 0.1},
                                         "n_clients": 3})
spool.append([{"kind": "round", "round": t, "metrics": {"test_acc": t / 10},
               "available": [0, 1, 2], "selected": [t], "weights": {str(t): 1.0}}
              for t in range(3)])
spool.append([{"kind": "finish", "status": "succeeded", "message": None}])
"""


def checkout(into: Path, *names: str) -> Path:
    """A copy of the tree's `names` (files and folders, no build output) under `into`."""
    ignore = shutil.ignore_patterns("__pycache__", "build", "*.egg-info")
    into.mkdir()
    for name in names:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=ignore)
        else:
            shutil.copy2(source, into / name)
    return into


class Venv:
    """A fresh virtual environment, each command run outside the tree (so that nothing
    is imported from it)."""

    def __init__(self, root: Path) -> None:
        subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
        self.root = root
        self.bin = root / "venv" / "bin"

    def run(self, *args: str | Path) -> str:
        done = subprocess.run(
            [str(a) for a in args], cwd=self.root, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def pip(self, *args: str | Path) -> str:
        return self.run(self.bin / "python", "-m", "pip", "--disable-pip-version-check", *args)

    def installed(self) -> set[str]:
        listed = json.loads(self.pip("list", "--format=json"))
        return {re.sub(r"[-_.]+", "-", p["name"]).lower() for p in listed}

    def package_files(self) -> set[str]:
        """The files of the `fedwatch` package here, relative to it."""
        [site] = (self.root / "venv" / "lib").glob("python*/site-packages")
        package = site / "fedwatch"
        return {p.relative_to(package).as_posix() for p in package.rglob("*.py") if p.is_file()}


def test_the_full_distribution_requires_the_client_of_its_own_version() -> None:
    full, client = (
        tomllib.loads((REPO / path).read_text())["project"]
        for path in ("pyproject.toml", "client/pyproject.toml")
    )

    assert full["version"] == client["version"]
    assert f"fedwatch-client=={client['version']}" in full["dependencies"]


@pytest.mark.slow
def test_the_client_installs_alone_and_syncs_a_spool(server: Server, tmp_path: Path) -> None:
    venv = Venv(tmp_path)
    tree = checkout(tmp_path / "tree", "client", "fedwatch")
    before = venv.installed()

    venv.pip("install", "--quiet", tree / "client")

    assert venv.installed() - before == {"fedwatch-client"}
    assert before - venv.installed() == set()
    assert venv.package_files() == {p.name for p in (REPO / "fedwatch").glob("*.py")}
    venv.run(venv.bin / "python", "-c", "import fedwatch.client, fedwatch.read")
    venv.run(venv.bin / "python", "-c", SPOOL, tmp_path / "spool")
    out = venv.run(venv.bin / "fedwatch", "sync", tmp_path / "spool", "--url", server.url)
    [run_id] = re.findall(r"run (\d+), 3 rounds, 3 new", out)
    with httpx.Client(base_url=server.url) as client:
        run = client.get(f"/api/runs/{run_id}").json()
        selection = client.get(f"/api/runs/{run_id}/selection").json()["values"]
    assert (run["name"], run["status"], run["rounds_done"]) == ("offline", "succeeded", 3)
    assert selection == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]


@pytest.mark.slow
def test_the_full_distribution_goes_beside_the_client_and_leaves_it_whole(
    tmp_path: Path,
) -> None:
    venv = Venv(tmp_path)
    tree = checkout(tmp_path / "tree", "pyproject.toml", "README.md", "client", "fedwatch",
                    "api", "worker", "db")  # fmt: skip
    venv.pip("install", "--quiet", tree / "client")
    client_files = venv.package_files()

    venv.pip("install", "--quiet", "--no-deps", tree)  # its files only: no torch here
    both = venv.package_files()
    venv.pip("uninstall", "--quiet", "--yes", "fedwatch")

    assert "cli/commands.py" in both and "plugins/__init__.py" in both
    assert client_files < both
    assert venv.package_files() == client_files
    assert "fedwatch" not in venv.installed()
    assert "sync" in venv.run(venv.bin / "fedwatch", "--help")
