"""OpenMP's wait policy of the `fedwatch` command (fedwatch/cli/openmp.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from fedwatch.cli.openmp import prepare, threads_per_process


def test_prepare_lets_idle_threads_sleep() -> None:
    environ: dict[str, str] = {"PATH": "/bin"}

    prepare(environ)

    assert environ == {"PATH": "/bin", "OMP_WAIT_POLICY": "PASSIVE"}


@pytest.mark.parametrize("chosen", [{"OMP_WAIT_POLICY": "ACTIVE"}, {"GOMP_SPINCOUNT": "1000"}])
def test_a_wait_setting_of_the_user_wins(chosen: dict[str, str]) -> None:
    environ = dict(chosen)

    prepare(environ)

    assert environ == chosen


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
        env={**environ, "OMP_DISPLAY_ENV": "TRUE", "OMP_NUM_THREADS": "1", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stderr


def test_the_command_sets_the_policy_before_torch_loads_openmp() -> None:
    assert "OMP_WAIT_POLICY = 'PASSIVE'" in omp_settings()


def test_the_command_keeps_the_users_policy() -> None:
    assert "OMP_WAIT_POLICY = 'ACTIVE'" in omp_settings(OMP_WAIT_POLICY="ACTIVE")


def test_importing_the_command_loads_no_torch() -> None:
    code = "import sys, fedwatch.command, fedwatch.cli.commands; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    assert done.stdout.strip() == "False"
