"""Torch's threads on a shared machine (worker/engine/threads.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.eventually import eventually
from worker.engine import threads
from worker.engine.threads import Reading, ThreadGovernor, busy_ticks, running, threads_for

STAT = """cpu  900 10 300 5000 40 5 5 30 0 0
cpu0 100 0 50 2000 10 1 2 3 0 0
cpu1 400 10 100 1000 20 2 1 7 0 0
cpu2 400 0 150 2000 10 2 2 20 0 0
intr 12345
procs_running 3
procs_blocked 0
"""


def test_threads_for_by_hand() -> None:
    # a thread for each core at most 30 % used by others, at least 1, at most the budget:
    # 2 cores, others 0.27 → ⌊2.03⌋ = 2; 0.31 → ⌊1.99⌋ = 1; 4 cores, others 1.5 → ⌊2.8⌋
    assert threads_for(2, 0.0, 2) == 2
    assert threads_for(2, 0.27, 2) == 2
    assert threads_for(2, 0.31, 2) == 1
    assert threads_for(2, 1.0, 2) == 1
    assert threads_for(2, 2.0, 2) == 1
    assert threads_for(2, 0.0, 1) == 1
    assert threads_for(4, 1.5, 4) == 2
    assert threads_for(8, 0.0, 4) == 4


def test_proc_stat_read_by_hand() -> None:
    # cpu0: 100 + 0 + 50 + 1 + 2 + 3 = 156; cpu1: 400 + 10 + 100 + 2 + 1 + 7 = 520
    # (idle and iowait left out); cpu2 is not one of ours
    assert busy_ticks(STAT, {0, 1}) == 156 + 520
    assert busy_ticks(STAT, {2}) == 400 + 150 + 2 + 2 + 20
    assert running(STAT) == 3
    assert running("cpu 1 2 3 4") == 1
    assert busy_ticks(STAT + "\n\n", {0}) == 156  # blank lines are passed over


class Machine:
    """Readings of a made-up machine, at the times the test sets."""

    def __init__(self, running: int) -> None:
        self.now = 0.0
        self.reading = Reading(0.0, 0.0, 0.0, running)
        self.reads = 0

    def read(self) -> Reading:
        self.reads += 1
        return self.reading

    def advance(self, seconds: float, busy_s: float, own_s: float) -> None:
        r = self.reading
        self.now += seconds
        self.reading = Reading(r.busy_s + busy_s, r.own_s + own_s, self.now, 1)


def test_governor_follows_the_other_processes_by_hand() -> None:
    machine, applied = Machine(running=1), list[int]()
    governor = ThreadGovernor(2, 2, machine.read, applied.append, lambda: machine.now)
    assert applied == [] and governor.threads == 2  # alone at the start: the budget

    machine.advance(0.05, busy_s=0.1, own_s=0.1)
    governor.tick()  # before FIRST_S (0.1 s): no reading
    assert machine.reads == 1

    machine.advance(0.05, busy_s=0.15, own_s=0.05)
    governor.tick()  # 0.1 s: others used (0.25 − 0.15) / 0.1 = 1.0 core → 1 thread
    assert applied == [1] and machine.reads == 2

    machine.advance(0.4, busy_s=0.8, own_s=0.4)
    governor.tick()  # 0.4 s after the last reading, before EVERY_S: none
    assert machine.reads == 2

    machine.advance(0.1, busy_s=0.2, own_s=0.1)
    governor.tick()  # 0.5 s: others (1.0 − 0.5) / 0.5 = 1.0 → still 1, not applied again
    assert applied == [1] and machine.reads == 3

    machine.advance(0.5, busy_s=0.95, own_s=0.9)
    governor.tick()  # others 0.05 / 0.5 = 0.1 → 2 threads again
    assert applied == [1, 2] and governor.threads == 2


def test_governor_starts_with_fewer_threads_beside_a_running_process() -> None:
    # two threads running when it is made, this one and another: one core taken
    machine, applied = Machine(running=2), list[int]()

    ThreadGovernor(2, 2, machine.read, applied.append, lambda: machine.now)

    assert applied == [1]


def test_an_explicit_thread_count_is_kept_and_the_count_restored() -> None:
    before = torch.get_num_threads()
    with threads.governed_threads(before + 1, explicit=True):
        assert threads._governor is None and torch.get_num_threads() == before + 1
    with threads.governed_threads(2, explicit=False):
        assert threads._governor is not None
    assert threads._governor is None and torch.get_num_threads() == before


SPIN = "import os\nos.sched_setaffinity(0, {%d})\nwhile True: pass"


def spinning(pid: int, core: int) -> bool:
    """Whether process `pid` runs on `core` alone and has used the CPU (its utime, the
    14th field of /proc/<pid>/stat, in clock ticks)."""
    after_name = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return os.sched_getaffinity(pid) == {core} and int(after_name[11]) > 0


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_a_process_spinning_on_a_core_leaves_one_thread() -> None:
    # a competitor pinned to one of two cores: the governor's readings of /proc/stat
    # find a core taken, and it keeps one thread while this process works
    usable = os.sched_getaffinity(0)
    cores = sorted(usable)[:2]
    applied: list[int] = []
    competitor = subprocess.Popen([sys.executable, "-c", SPIN % cores[0]])
    os.sched_setaffinity(0, set(cores))
    try:
        eventually(lambda: spinning(competitor.pid, cores[0]), "the competitor spinning")
        governor = ThreadGovernor(2, 2, apply=applied.append)

        def one_thread() -> bool:
            sum(i * i for i in range(20_000))  # this process's own work
            governor.tick()
            return governor.threads == 1 and governor.wait_s == threads.EVERY_S

        eventually(one_thread, lambda: f"one thread, not {governor.threads}", 30, every=0)
    finally:
        competitor.kill()
        competitor.wait()
        os.sched_setaffinity(0, usable)
    assert applied[-1] == 1
