"""The torch threads of the `fedwatch` command (fedwatch/cli/openmp.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from fedwatch.cli.openmp import explicit_threads, threads_per_process


@pytest.mark.parametrize(
    ("environ", "threads"),
    [
        ({}, None),
        ({"OMP_NUM_THREADS": "3"}, 3),
        ({"OMP_NUM_THREADS": "0"}, None),
        ({"OMP_NUM_THREADS": "x"}, None),
    ],
)
def test_explicit_threads(environ: dict[str, str], threads: int | None) -> None:
    assert explicit_threads(environ) == threads


def test_threads_per_process_shares_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3, 4})

    assert [threads_per_process(n) for n in (1, 2, 5, 8)] == [5, 2, 1, 1]


def test_threads_per_process_keeps_the_users_omp_num_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})

    assert threads_per_process(2) == 3


def omp_settings(**env: str) -> str:
    """What libgomp reports it read, in a `fedwatch` process that loads torch."""
    environ = {
        k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
    }
    args = ["-m", "fedwatch.command", "simulate", "example1", "--set", "rounds=1", "--estimate"]
    done = subprocess.run(
        [sys.executable, *args],
        env={**environ, "OMP_DISPLAY_ENV": "VERBOSE", "OMP_NUM_THREADS": "1", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stderr


def test_the_command_leaves_openmps_waits_spinning() -> None:
    # idle threads that sleep cost a run on a quiet machine 1.6–2.6× (bench/threads.py);
    # the thread governor handles a busy one (worker/engine/threads.py)
    assert "GOMP_SPINCOUNT = '300000'" in omp_settings()


def test_the_command_keeps_the_users_policy() -> None:
    assert "OMP_WAIT_POLICY = 'ACTIVE'" in omp_settings(OMP_WAIT_POLICY="ACTIVE")


def test_importing_the_command_loads_no_torch() -> None:
    code = "import sys, fedwatch.command, fedwatch.cli.commands; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    assert done.stdout.strip() == "False"
