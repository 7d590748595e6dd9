"""A run's own process: its memory cap, its thread budget, its signals.

Every run executes in a child process, in the embedded server and in Celery workers
alike, so a run that exhausts memory or crashes takes nothing else with it. Children
are forked from a fork server that has already imported torch and the engine, so a run
starts in milliseconds rather than the seconds those imports take. That includes
`torch._dynamo`, which `torch.func.grad` imports on its first call: the first round of a
model trained through `torch.func` (Example 1's scalar model) took 0.97 s without it,
0.003 s with it.

Signals from the supervisor: `STOP` (SIGTERM) stops the run at the next round with a
checkpoint of where it stopped; `CANCEL` (SIGUSR1) does the same for a cancel; SIGINT
is ignored (a terminal's Ctrl-C reaches the whole process group: the server decides).
The process dies with the fork server, which dies with the supervising process, and
shows as `fw-run-<id>` in `ps` and `top`.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import re
import resource
import signal
import sys
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any

import torch._dynamo  # noqa: F401  (in the fork server: see above)

from db.retry import DatabaseUnavailable
from db.session import make_engine, make_sessionmaker
from db.settings import Settings
from worker.engine import (
    KeptPools,
    builtin_modules,
    governed_threads,
    install,
    installed,
    keep_freed_memory,
    keep_pools_in,
)
from worker.execute import execute_claimed
from worker.run_logs import LogRelay, PipeHandler

STOP = signal.SIGTERM
CANCEL = signal.SIGUSR1
STOPPED = 75  # exit status: stopped at a round boundary, its state saved (EX_TEMPFAIL)
# Exit status: the database took no writes past the retry limit (a full disk, a server
# away), so the outcome is not stored: the supervisor stores it once it can (EX_UNAVAILABLE).
UNSTORED = 69
PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15


@dataclass(frozen=True)
class ChildSpec:
    """What a run's process needs; sent to it pickled."""

    run_id: int
    claim: str
    settings: dict[str, Any]  # `Settings.model_dump()`
    threads: int
    memory_cap_mb: int
    kept_pools: KeptPools | None  # the datasets its supervising process keeps in memory
    cores: frozenset[int] | None = None  # where it runs (None: where its fork server may)


def context() -> ForkServerContext:
    """The fork server's context; it preloads this module (torch, the engine, the db) and
    the built-in components' modules, so that a run's process only collects them."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__, *builtin_modules()])
    return ctx


def start(spec: ChildSpec) -> tuple[BaseProcess, LogRelay]:
    """The run's process, started, and the relay of its logs (join it after the end)."""
    ctx = context()
    logs = LogRelay(ctx)
    name = f"fedwatch-run-{spec.run_id}"
    process = ctx.Process(target=main, args=(spec, logs.writer), name=name)
    process.start()
    logs.start()
    return process, logs


WARM = threading.Event()
"""Set once this process's fork server has made its imports (`warm_up`): a run, or a
system model's check, starts in milliseconds from then on."""


def warm_up() -> None:
    """Start the fork server now and wait until it has made its imports (it starts a first
    process once they are done), so that the first run does not wait for them. The
    wait must come before the run is claimed: a claimed run's start that waits for those
    imports renews no heartbeat, and where they take longer than the lease (5 s on a
    slow machine against a test's 5 s lease) the sweep takes the run for a dead worker."""
    probe = context().Process(target=_nothing, name="fedwatch-warm-up")
    probe.start()
    probe.join()
    WARM.set()


def _nothing() -> None:
    """The warm-up's process: its start is the fork server's first."""


def main(spec: ChildSpec, logs: Connection) -> None:
    """Entry point of the run's process: exits 0 once the outcome is stored (or the run
    is gone), `STOPPED` when it stopped early with its state saved, `UNSTORED` (its last
    log line at error level says why) when the database took no writes."""
    if spec.cores is not None:  # first: before any thread starts, and before its name shows
        os.sched_setaffinity(0, spec.cores)
    stop, cancel = threading.Event(), threading.Event()
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with the fork server, see above
    _prctl(PR_SET_NAME, ctypes.create_string_buffer(process_name(spec.run_id).encode()))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(STOP, _setter(stop))
    signal.signal(CANCEL, _setter(cancel))
    logging.basicConfig(level=logging.INFO, handlers=[PipeHandler(logs)], force=True)
    keep_freed_memory()
    install(installed())
    keep_pools_in(spec.kept_pools)
    settings = Settings(**spec.settings)
    cap_memory(spec.memory_cap_mb)
    engine = make_engine(settings.database_url)
    try:
        with governed_threads(spec.threads, explicit=settings.run_threads is not None):
            stopped = execute_claimed(
                spec.run_id,
                spec.claim,
                sessions=make_sessionmaker(engine),
                settings=settings,
                stop=stop,
                cancel=cancel,
            )
    except DatabaseUnavailable as err:
        logging.getLogger(__name__).error("%s", err)
        sys.exit(UNSTORED)
    finally:
        engine.dispose()
    sys.exit(STOPPED if stopped else 0)


def cap_memory(cap_mb: int) -> None:
    """Limit the process's private writable memory (heap and anonymous mappings,
    `RLIMIT_DATA`) to what it uses now plus `cap_mb`: past it, allocations fail and the
    run fails with an out-of-memory error instead of taking the machine down.
    `RLIMIT_AS` would also count the 3 GB of libraries torch maps and the address space
    CUDA reserves, which are not memory the run uses."""
    limit = data_size() + (cap_mb << 20)
    _soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))


def data_size() -> int:
    """This process's private writable memory in bytes (`VmData`)."""
    with open("/proc/self/status") as status:
        match = re.search(r"^VmData:\s+(\d+) kB", status.read(), re.M)
    assert match is not None
    return int(match.group(1)) << 10


def _setter(event: threading.Event) -> Any:
    def handler(signum: int, frame: FrameType | None) -> None:
        event.set()

    return handler


def process_name(run_id: int) -> str:
    """The run's process as `ps -o comm` and `top` show it (at most 15 characters)."""
    return f"fw-run-{run_id}"[:15]


def _prctl(option: int, value: Any) -> None:
    """Linux's prctl(2); elsewhere nothing (a run then ends at its next write when its
    server is gone, and shows under the interpreter's name)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(option, value)
    except (OSError, AttributeError):
        pass
