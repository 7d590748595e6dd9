"""The base images the compose file names: the upstream ones where the engine can pull
them, else stand-ins built from Debian's packages (docker-compose.yml's variables
FEDWATCH_PYTHON_IMAGE, FEDWATCH_POSTGRES_IMAGE and FEDWATCH_REDIS_IMAGE then name them).

The stand-ins share one root file system: `mmdebstrap --variant=minbase` of this host's
Debian release with Python, PostgreSQL and Redis, imported once and kept in the engine's
data root; their Dockerfiles (standins/) are small and build from the cache."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from tests.db.databases import unavailable

STANDINS = Path(__file__).parent / "standins"
# variable: (upstream image, stand-in)
IMAGES = {
    "FEDWATCH_PYTHON_IMAGE": ("python:3.11-slim", "python"),
    "FEDWATCH_POSTGRES_IMAGE": ("postgres:16", "postgres"),
    "FEDWATCH_REDIS_IMAGE": ("redis:7", "redis"),
}
PACKAGES = "ca-certificates,python3,python3-venv,postgresql,redis-server"


def docker(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], env=env, capture_output=True, text=True, check=False)


def present(env: dict[str, str], image: str) -> bool:
    return docker(env, "image", "inspect", image).returncode == 0


def base_images(env: dict[str, str]) -> dict[str, str]:
    """The variables for the images that could not be pulled, naming their stand-ins."""
    missing = [
        variable
        for variable, (upstream, _) in IMAGES.items()
        if not present(env, upstream) and docker(env, "pull", upstream).returncode != 0
    ]
    if not missing:
        return {}
    base = debian_image(env)
    chosen = {}
    for variable in missing:
        name = IMAGES[variable][1]
        tag = f"fedwatch-standin/{name}:{release()}"
        build = docker(
            env,
            *("build", "--quiet", "--tag", tag, "--build-arg", f"BASE={base}"),
            *("--file", str(STANDINS / f"{name}.Dockerfile"), str(STANDINS)),
        )
        assert build.returncode == 0, f"stand-in {name}:\n{build.stderr}"
        chosen[variable] = tag
    return chosen


def release() -> str:
    lines = Path("/etc/os-release").read_text().splitlines()
    fields = dict(line.split("=", 1) for line in lines if "=" in line)
    codename = fields.get("VERSION_CODENAME", "").strip('"')
    if fields.get("ID") != "debian" or not codename:
        unavailable("the stand-in images are built from Debian's packages: this host is not Debian")
    return codename


def debian_image(env: dict[str, str]) -> str:
    """This release's minimal Debian with the stand-ins' packages, imported once."""
    tag = f"fedwatch-standin/debian:{release()}"
    if present(env, tag):
        return tag
    with tempfile.TemporaryDirectory(prefix="fedwatch-rootfs-") as folder:
        tarball = Path(folder) / "rootfs.tar"
        made = subprocess.run(
            ["mmdebstrap", "--variant=minbase", f"--include={PACKAGES}", release(), str(tarball)],
            capture_output=True,
            text=True,
            check=False,
        )
        if made.returncode != 0:
            unavailable(f"no upstream images, and mmdebstrap failed:\n{made.stderr}")
        imported = docker(env, "import", str(tarball), tag)
        assert imported.returncode == 0, imported.stderr
    return tag
