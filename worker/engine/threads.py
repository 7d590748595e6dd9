"""Torch's threads for a run on a machine shared with other work.

Torch's intra-op threads are OpenMP's, and they wait for each other at the end of every
operation. On a quiet machine they wait best spinning: idle threads that sleep cost a
run 1.6–2.6× one thread's time on 2 cores, the sleep and the wake-up at every
operation. On a busy one, a spinning thread waits for a peer that another process has
descheduled, and holds its core while it does: 2–13× one thread's time
(`python bench/threads.py --contention`, docs/benchmarks.md). Neither policy is right
on both, so the thread count follows the machine instead: every `EVERY_S` seconds,
between rounds, the governor reads how much of this process's cores other processes
used (`/proc/stat` less this process's own CPU time), and keeps one thread for each core
that is at least `FREE_SHARE` free, between one and the run's budget.

The threads are the process's, and so is their governor: an entry point runs its
simulations (`fedwatch simulate`, `compare`'s workers, a run's process) inside
`governed_threads`, and the round loop calls `tick` after every round.

Torch's results can depend on the thread count in the last bits (a sum split in two
halves rounds differently): a run whose threads change may differ at that level from
the same run on a quiet machine. Where that matters, an explicit thread count
(`OMP_NUM_THREADS`, `FEDWATCH_RUN_THREADS`) keeps the count fixed.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch

EVERY_S = 0.5  # seconds between two readings; the first comes after FIRST_S
FIRST_S = 0.1
FREE_SHARE = 0.7  # a core counts as free when other processes used at most 30 % of it
STAT = "/proc/stat"
log = logging.getLogger(__name__)


def threads_for(cores: int, others: float, budget: int) -> int:
    """Threads for `cores` cores of which other processes used `others` (in cores): one
    for each core at least `FREE_SHARE` free, at least one, at most `budget`."""
    free = math.floor(cores - others + (1 - FREE_SHARE) + 1e-9)
    return max(1, min(budget, free))


def running(stat: str) -> int:
    """Threads running or ready to run on the whole machine at this instant, this one
    included (`procs_running` in the text of `/proc/stat`)."""
    for line in stat.splitlines():
        if line.startswith("procs_running "):
            return int(line.split()[1])
    return 1


def busy_ticks(stat: str, cpus: set[int]) -> int:
    """Clock ticks the CPUs `cpus` spent on anything but idling and waiting for I/O, from
    the text of `/proc/stat` (user, nice, system, irq, softirq and steal: the time the
    hypervisor gave to others counts as taken)."""
    total = 0
    for line in stat.splitlines():
        name, *fields = line.split() or [""]
        if name[:3] == "cpu" and name[3:].isdigit() and int(name[3:]) in cpus:
            user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
            total += user + nice + system + irq + softirq + steal
    return total


@dataclass(frozen=True)
class Reading:
    """The machine's busy time on this process's cores, this process's CPU time, the
    time of the reading, all in seconds, and the threads running at that instant."""

    busy_s: float
    own_s: float
    at: float
    running: int


def read_machine() -> Reading | None:
    """A reading of this machine, None where there is no `/proc/stat`."""
    try:
        with open(STAT) as stat:
            text = stat.read()
    except OSError:
        return None
    busy_s = busy_ticks(text, os.sched_getaffinity(0)) / os.sysconf("SC_CLK_TCK")
    return Reading(busy_s, time.process_time(), time.monotonic(), running(text))


class ThreadGovernor:
    """Sets torch's threads between 1 and `budget` from the other processes' use of the
    `cores` cores, read by `read` at most every `EVERY_S` seconds of `clock` (`FIRST_S`
    for the first) when `tick` is called. Until then, from the threads running when it
    is made, less this one: a run that starts beside a busy process starts with fewer
    threads rather than spinning until its first reading."""

    def __init__(
        self,
        budget: int,
        cores: int,
        read: Callable[[], Reading | None] = read_machine,
        apply: Callable[[int], None] = torch.set_num_threads,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.budget, self.cores = budget, cores
        self.read, self.apply, self.clock = read, apply, clock
        self.last = read()
        self.wait_s = FIRST_S
        self.threads = budget
        if self.last is not None:
            self.set(threads_for(cores, min(cores, self.last.running - 1), budget))

    def set(self, threads: int) -> None:
        if threads != self.threads:
            log.info(
                "torch threads: %d, from %d (other processes' use of the cores)",
                threads,
                self.threads,
            )
            self.apply(threads)
            self.threads = threads

    def tick(self) -> None:
        if self.last is None or self.clock() - self.last.at < self.wait_s:
            return
        now = self.read()
        if now is None or now.at <= self.last.at:
            return
        elapsed = now.at - self.last.at
        others = max(0.0, (now.busy_s - self.last.busy_s) - (now.own_s - self.last.own_s))
        self.set(threads_for(self.cores, others / elapsed, self.budget))
        self.last, self.wait_s = now, EVERY_S


_governor: ThreadGovernor | None = None


@contextmanager
def governed_threads(budget: int, explicit: bool) -> Iterator[None]:
    """Inside, this process's simulations train with `budget` torch threads: exactly
    that many where the user chose the number (`explicit`), else up to it, fewer while
    other processes hold the cores. Torch's thread count is restored after."""
    global _governor
    before = torch.get_num_threads()
    torch.set_num_threads(budget)
    cores = len(os.sched_getaffinity(0))
    _governor = None if explicit or budget == 1 else ThreadGovernor(budget, cores)
    try:
        yield
    finally:
        _governor = None
        torch.set_num_threads(before)


def tick() -> None:
    """Between rounds: let the governor, if any, follow the machine."""
    if _governor is not None:
        _governor.tick()
