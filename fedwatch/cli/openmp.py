"""How the processes of the `fedwatch` command use OpenMP's threads.

Torch's intra-op threads are OpenMP's (libgomp). By default a thread that finishes its
share of an operation spins for a while at the barrier, waiting for its peers. On a
machine where other processes compete for the cores, the peer it waits for is often
descheduled, and the spinning thread keeps it off the free core: with the load average
at 5–7 on 2 cores, `fedwatch simulate cafed-synthetic` took 26–32 s with 2 threads and
3.4–4.6 s with one. With `OMP_WAIT_POLICY=PASSIVE` a waiting thread sleeps at once and
gives its core back; `python bench/threads.py --contention` measures both policies, with
and without a competing process (docs/benchmarks.md).

libgomp reads its settings once, when torch loads it, and processes started later
(`compare`'s workers, the server's and the worker's runs) inherit the environment: so
`prepare` runs first thing in the command, before anything imports torch.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

WAIT_SETTINGS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


def prepare(environ: MutableMapping[str, str]) -> None:
    """Let OpenMP's idle threads sleep (`OMP_WAIT_POLICY=PASSIVE`), unless the user chose
    a wait setting of their own."""
    if not any(name in environ for name in WAIT_SETTINGS):
        environ["OMP_WAIT_POLICY"] = "PASSIVE"


def threads_per_process(processes: int) -> int:
    """Torch threads for each of `processes` processes sharing this machine's cores:
    `OMP_NUM_THREADS` where the user set it, else the usable cores ÷ `processes`."""
    explicit = os.environ.get("OMP_NUM_THREADS", "")
    if explicit.isdigit() and int(explicit) > 0:
        return int(explicit)
    return max(1, len(os.sched_getaffinity(0)) // processes)
