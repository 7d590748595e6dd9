"""The project's docker-compose.yml brought up in the test's own engine, with the CI
override (tests/deploy/docker-compose.ci.yml), two workers, and down with its volumes at
the end whatever happened."""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.deploy.certificates import host_additions
from tests.deploy.daemon import docker_daemon
from tests.deploy.images import base_images
from tests.deploy.wheels import torch_wheels
from tests.eventually import eventually
from tests.service.servers import free_port

REPO = Path(__file__).resolve().parents[2]
OVERRIDE = Path(__file__).with_name("docker-compose.ci.yml")
PROJECT = "fedwatch-ci"
WORKERS = 2
HEALTHY_S = 480  # only a stack that never comes up waits this long
EMBEDDED = """
import json, sys
from worker.engine import ListSink, RunConfig, run_config_for, simulate
from worker.engine import current
for config in json.load(sys.stdin):
    sink = ListSink()
    simulate(run_config_for(current()).model_validate(config), sink)
    print(json.dumps([{"round": r.round, **r.metrics} for r in sink.records]))
"""


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Print how long the phase took (`pytest -s` shows it)."""
    start = time.monotonic()
    yield
    print(f"deploy: {name}: {time.monotonic() - start:.1f} s", flush=True)


@dataclass
class Stack:
    env: dict[str, str]
    compose_file: Path
    api: httpx.Client

    def compose(
        self, *args: str, check: bool = True, stdin: list[dict[str, Any]] | None = None
    ) -> subprocess.CompletedProcess[str]:
        cmd = ["docker-compose", "-p", PROJECT, "-f", str(self.compose_file), *args]
        data = None if stdin is None else json.dumps(stdin)
        done = subprocess.run(
            cmd, env=self.env, input=data, capture_output=True, text=True, check=False
        )
        assert not check or done.returncode == 0, f"{' '.join(args)}:\n{done.stdout}{done.stderr}"
        return done

    def docker(self, *args: str) -> str:
        done = subprocess.run(["docker", *args], env=self.env, capture_output=True, text=True)
        assert done.returncode == 0, f"docker {' '.join(args)}:\n{done.stderr}"
        return done.stdout

    def logs(self, container: str) -> str:
        done = subprocess.run(["docker", "logs", container], env=self.env, capture_output=True)
        return (done.stdout + done.stderr).decode(errors="replace")

    def containers(self, service: str) -> list[str]:
        return self.compose("ps", "-q", service).stdout.split()

    def node(self, container: str) -> str:
        """The Celery node name the worker in `container` chose."""
        return self.docker("exec", container, "cat", "/tmp/fedwatch-node").strip()

    def embedded(self, configs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
        """The configs run in-process, one after the other, in one Python of the API's
        container: each one's per-round scalars, as the API serves a run's rounds."""
        done = self.compose("exec", "-T", "api", "python", "-c", EMBEDDED, stdin=configs)
        return [json.loads(line) for line in done.stdout.splitlines()]

    def wait_healthy(self, service: str, count: int) -> None:
        def healthy() -> bool:
            ids = self.containers(service)
            health = "{{.State.Health.Status}}"
            states = self.docker("inspect", "-f", health, *ids).split() if ids else []
            return states.count("healthy") == count

        def said() -> str:
            logs = self.compose("logs", "--tail", "40", service, check=False).stdout
            return f"{service}: {count} healthy:\n{logs}"

        eventually(healthy, said, HEALTHY_S, every=1)


def render(env: dict[str, str], folder: Path) -> Path:
    """docker-compose.yml with the CI override, resolved, the services' `ports` dropped."""
    cmd = ["docker-compose", "-f", str(REPO / "docker-compose.yml"), "-f", str(OVERRIDE), "config"]
    done = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    config = yaml.safe_load(done.stdout)
    for service in config["services"].values():
        service.pop("ports", None)
    rendered = folder / "docker-compose.yml"
    rendered.write_text(yaml.safe_dump(config))
    return rendered


@contextmanager
def compose_stack() -> Iterator[Stack]:
    """The stack up with two healthy workers; down with its volumes afterwards, and the
    engine stopped (its images stay cached)."""
    with ExitStack() as cleanup:
        with phase("engine start"):
            env = cleanup.enter_context(docker_daemon())
        env.pop("FEDWATCH_API_TOKEN", None)
        with phase("base images"):
            env |= base_images(env)
        env |= cleanup.enter_context(torch_wheels())
        api_port = free_port()
        env |= {
            "CI_POSTGRES_PORT": str(free_port()),
            "CI_REDIS_PORT": str(free_port()),
            "CI_API_PORT": str(api_port),
            "FEDWATCH_EXTRA_CA_CERTS": host_additions(),
        }
        folder = Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="fedwatch-ci-")))
        base_url = f"http://127.0.0.1:{api_port}"
        api = cleanup.enter_context(httpx.Client(base_url=base_url, timeout=60))
        stack = Stack(env, render(env, folder), api)
        cleanup.callback(down, stack)
        with phase("image build"):
            stack.compose("build", "api")
        with phase("up, two workers healthy"):
            stack.compose("up", "-d", "--scale", f"worker={WORKERS}")
            stack.wait_healthy("worker", WORKERS)
        yield stack


def down(stack: Stack) -> None:
    """Containers and volumes go; so do the images that a new build left untagged."""
    with phase("down -v"):
        stack.compose("down", "-v", "--remove-orphans", check=False)
        stack.docker("image", "prune", "--force")
