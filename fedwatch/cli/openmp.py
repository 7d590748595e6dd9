"""How many torch threads the processes of the `fedwatch` command train with.

Torch's intra-op threads are OpenMP's (libgomp). Where the user sets `OMP_NUM_THREADS`,
every process trains with exactly that many; otherwise a process gets its share of the
usable cores, and the round loop gives threads up while other processes hold the cores
(`worker/engine/threads.py`, which also says why OpenMP's waits are left spinning).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import AbstractContextManager


def explicit_threads(environ: Mapping[str, str]) -> int | None:
    """The thread count the user chose (`OMP_NUM_THREADS`, a positive whole number), if
    any."""
    chosen = environ.get("OMP_NUM_THREADS", "")
    return int(chosen) if chosen.isdigit() and int(chosen) > 0 else None


def threads_per_process(processes: int) -> int:
    """Torch threads for each of `processes` processes sharing this machine's cores:
    `OMP_NUM_THREADS` where the user set it, else the usable cores ÷ `processes`."""
    explicit = explicit_threads(os.environ)
    if explicit is not None:
        return explicit
    return max(1, len(os.sched_getaffinity(0)) // processes)


def run_threads(threads: int) -> AbstractContextManager[None]:
    """Inside, simulations train with `threads` torch threads: exactly that many where
    the user chose the number, else up to it (`worker.engine.threads`)."""
    from worker.engine import governed_threads

    return governed_threads(threads, explicit=explicit_threads(os.environ) is not None)
