"""Which cores the embedded server's runs execute on.

A run that shares its core with the API loses rounds whenever the API's event loop or
the viewers' streams take a turn there: each turn preempts it and leaves it a cache to
refill (`docs/deployment.md`, "Where the rest goes: the run's core"). With more than one
usable core, `fedwatch serve` keeps to its first core and gives its runs the others
(`Settings.run_cores`, `apart` by default); with one core there is nothing to keep apart.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

Cores = frozenset[int]


def split(cores: Iterable[int]) -> tuple[Cores, Cores] | None:
    """(the API's core, the runs' cores) of a set of cores: the lowest for the API, the
    rest for the runs; None with fewer than two."""
    ordered = sorted(set(cores))
    if len(ordered) < 2:
        return None
    return frozenset(ordered[:1]), frozenset(ordered[1:])


def pin_process(cores: Cores) -> None:
    """Move every thread of this process to `cores` (an affinity is a thread's own; the
    threads started later inherit the one of the thread that starts them)."""
    for task in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(task), cores)
        except ProcessLookupError:  # a thread that ended meanwhile
            continue


def keep_runs_apart() -> Cores | None:
    """Pin this process (the API) to its first usable core and return the others, for
    its runs; None, and nothing pinned, with a single core."""
    parts = split(os.sched_getaffinity(0))
    if parts is None:
        return None
    api, runs = parts
    pin_process(api)
    return runs
