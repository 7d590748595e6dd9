"""docker-compose.yml as Compose itself reads it, per profile, and the Dockerfile's sources.

Compose's `config` validates the file and prints it resolved (anchors merged, variables
interpolated); no Docker engine is needed. The standalone `docker-compose` (v1) prints every
service with its `profiles`, the `docker compose` plugin only the active ones: the services a
profile starts are picked here the same way for both."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from db.settings import Settings
from tests.db.databases import unavailable

REPO = Path(__file__).resolve().parents[1]
COMPOSE_FILE = REPO / "docker-compose.yml"


def compose_command() -> list[str]:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
        if probe.returncode == 0:
            return ["docker", "compose"]
    unavailable("neither docker-compose nor the docker compose plugin is installed")


def services(profile: str | None, **variables: str) -> dict[str, dict[str, Any]]:
    """The services `docker compose [--profile P] up` starts, resolved, in a clean
    environment (no FEDWATCH_* or COMPOSE_* variables: the file's defaults) plus `variables`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FEDWATCH_", "COMPOSE_"))}
    env.pop("PYTHONPATH", None)
    env |= variables
    profiles = ["--profile", profile] if profile else []
    cmd = [*compose_command(), "-f", str(COMPOSE_FILE), *profiles, "config"]
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{' '.join(cmd)} failed:\n{done.stderr}"
    resolved: dict[str, dict[str, Any]] = yaml.safe_load(done.stdout)["services"]
    active = {None, profile}
    return {
        name: service
        for name, service in resolved.items()
        if not service.get("profiles") or active & set(service["profiles"])
    }


def gpu_devices(service: dict[str, Any]) -> list[dict[str, Any]]:
    devices: list[dict[str, Any]] = (
        service.get("deploy", {}).get("resources", {}).get("reservations", {}).get("devices", [])
    )
    return devices


def shell(service: dict[str, Any], key: str = "command") -> str:
    """A `sh -c` command (a healthcheck's: `CMD-SHELL`) as the shell runs it (`$$` is `$`:
    Compose v1 prints the escape)."""
    command = service[key] if key == "command" else service["healthcheck"]["test"]
    assert command[0] in ("sh", "CMD-SHELL"), command
    return str(command[-1]).replace("$$", "$")


def queues(service: dict[str, Any]) -> set[str]:
    words = shlex.split(shell(service))
    return set(words[words.index("--queues") + 1].split(","))


def test_plain_up_needs_no_gpu_and_runs_every_queue() -> None:
    started = services(None)
    assert set(started) == {"postgres", "redis", "api", "worker"}
    assert not [name for name, s in started.items() if gpu_devices(s)]
    assert queues(started["worker"]) == {"gpu", "cpu"}  # `device` auto runs on the CPU


def test_gpu_profile_adds_a_cuda_worker_on_one_gpu() -> None:
    started = services("gpu")
    assert {name for name, s in started.items() if gpu_devices(s)} == {"gpu-worker"}
    gpu = started["gpu-worker"]
    assert gpu_devices(gpu) == [{"driver": "nvidia", "count": 1, "capabilities": ["gpu"]}]
    assert "/cu" in gpu["build"]["args"]["TORCH_INDEX"]  # CUDA wheels of torch
    assert gpu["image"] != started["api"]["image"]  # not the CPU image the API builds
    assert "gpu" in queues(gpu)


def size_bytes(value: str | int) -> int:
    """A Compose size: bytes, or a number with a unit (`2304m`); Compose v1 keeps the
    text, the plugin resolves it to bytes."""
    text = str(value).lower().removesuffix("b")
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def test_workers_have_room_for_the_datasets_they_keep() -> None:
    budget = Settings.model_fields["keep_datasets_mb"].default << 20
    for profile, name in ((None, "worker"), ("gpu", "gpu-worker")):
        assert size_bytes(services(profile)[name]["shm_size"]) > budget


def test_default_environment_sets_no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    environment: dict[str, str] = services(None)["api"]["environment"]
    assert environment["FEDWATCH_API_TOKEN"] == ""  # `${FEDWATCH_API_TOKEN:-}` unset
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    assert Settings().api_token is None


def test_dockerfile_copies_paths_that_exist() -> None:
    lines = (REPO / "Dockerfile").read_text().splitlines()
    copies = [line.split()[1:] for line in lines if line.startswith("COPY ")]
    sources = [arg for args in copies for arg in args[:-1] if not arg.startswith("--")]
    assert sources, "the Dockerfile copies nothing"
    assert [s for s in sources if not (REPO / s).exists()] == []


def test_images_and_build_arguments_are_variables_with_todays_defaults() -> None:
    default = services("gpu")
    assert default["postgres"]["image"] == "postgres:16"
    assert default["redis"]["image"] == "redis:7"
    cpu, gpu = default["api"]["build"]["args"], default["gpu-worker"]["build"]["args"]
    assert cpu["PYTHON_IMAGE"] == gpu["PYTHON_IMAGE"] == "python:3.11-slim"
    assert cpu["TORCH_INDEX"] == "https://download.pytorch.org/whl/cpu"  # no CUDA libraries
    assert cpu["EXTRA_CA_CERTS"] == gpu["EXTRA_CA_CERTS"] == ""
    pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"
    chosen = services(
        "gpu",
        FEDWATCH_POSTGRES_IMAGE="mirror/postgres:16",
        FEDWATCH_REDIS_IMAGE="mirror/redis:7",
        FEDWATCH_PYTHON_IMAGE="mirror/python:3.11-slim",
        FEDWATCH_TORCH_INDEX="https://mirror/cpu",
        FEDWATCH_GPU_TORCH_INDEX="https://mirror/cu128",
        FEDWATCH_EXTRA_CA_CERTS=pem,
    )
    assert chosen["postgres"]["image"] == "mirror/postgres:16"
    assert chosen["redis"]["image"] == "mirror/redis:7"
    cpu, gpu = chosen["api"]["build"]["args"], chosen["gpu-worker"]["build"]["args"]
    assert cpu["PYTHON_IMAGE"] == gpu["PYTHON_IMAGE"] == "mirror/python:3.11-slim"
    assert (cpu["TORCH_INDEX"], gpu["TORCH_INDEX"]) == (
        "https://mirror/cpu",
        "https://mirror/cu128",
    )
    assert cpu["EXTRA_CA_CERTS"] == gpu["EXTRA_CA_CERTS"] == pem


def test_dockerfile_takes_the_build_arguments_compose_passes() -> None:
    text = (REPO / "Dockerfile").read_text()
    declared = set(re.findall(r"^ARG (\w+)", text, re.M))
    passed = {arg for s in services("gpu").values() if "build" in s for arg in s["build"]["args"]}
    assert passed <= declared
    assert re.search(r"^FROM \$\{PYTHON_IMAGE\}$", text, re.M)
    override = yaml.safe_load((REPO / "tests/deploy/docker-compose.ci.yml").read_text())
    assert set(override["services"]["api"]["build"]["args"]) <= declared  # PIP_CONSTRAINT


def test_each_worker_names_itself_and_its_healthcheck_pings_that_name(tmp_path: Path) -> None:
    """Two starts of the worker's command (a `fedwatch` on PATH that prints its arguments,
    the node file in tmp_path) on one host name: two names, each the one its healthcheck
    pings."""
    for profile, name in ((None, "worker"), ("gpu", "gpu-worker")):
        service = services(profile)[name]
        node_file = tmp_path / "node"
        command = shell(service).replace("/tmp/fedwatch-node", str(node_file))
        health = shell(service, "healthcheck").replace("/tmp/fedwatch-node", str(node_file))
        assert "celery -A worker.celery_app:celery_app inspect ping -d" in health
        fake = tmp_path / "bin" / "fedwatch"
        fake.parent.mkdir(exist_ok=True)
        fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
        fake.chmod(0o755)
        env = {"PATH": f"{fake.parent}:{os.environ['PATH']}", "HOSTNAME": "shared-host"}
        names = []
        for _ in range(2):
            done = subprocess.run(
                ["sh", "-c", command], env=env, capture_output=True, text=True, check=True
            )
            argv = done.stdout.split("\n")
            names.append(argv[argv.index("--name") + 1])
            assert node_file.read_text().strip() == names[-1]
            pinged = subprocess.run(
                ["sh", "-c", health.replace("celery ", "echo ", 1)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            assert pinged[pinged.index("-d") + 1] == names[-1]
        assert all(re.fullmatch(r"worker-[0-9a-f]{8}@shared-host", n) for n in names), names
        assert names[0] != names[1]
