"""Whether one intra-op thread trains faster than all the cores, by backend and by the
work of a local step, measured side by side in one run.

For each case, local training of K clients (5 steps) through one backend is timed with
1 thread and with all the cores, interleaved, median of `--repeats`:

- vmap and sequential on the tutorial CNN (3×32×32 inputs), K = 10, batch 32 (W1-10 of
  `bench/peers.py`) and K = 100 (W1-100);
- vmap and sequential on softmax regression (`linear`), K = 100, batch 10 (W2), and
  vmap with K = 2;
- sequential on the CNN with one client's batch of 8, 128 and 512.

Prints each case's step work (MFLOP, by torch's FLOP counter: a batch of every client's
through vmap, one client's batch through sequential), its two times and their ratio.
Run it on a quiet machine: that table is about the work of a step, not about other
processes.

`--contention` measures what other processes do to a run: each of cafed-synthetic (the
whole `fedwatch simulate cafed-synthetic --set algorithm.name=cafed`, its `wall_s`), W1-10,
W1-100 and W2 in a fresh process per setting, without and then with a competitor (a
process spinning on the first core, as `taskset -c 0`), under four settings: one thread
(`OMP_NUM_THREADS=1`); the default of the `fedwatch` command (up to all the cores, fewer
while other processes hold them, OpenMP's waits spinning: `worker/engine/threads.py`;
the training cases follow it between their repeats as a run does between rounds); and
the two defaults before it, all the cores whatever the machine does, with idle threads
sleeping (`OMP_WAIT_POLICY=PASSIVE`) and spinning (libgomp's own default).

    python bench/threads.py [--repeats 5] [--cases cnn-k10,...]
    python bench/threads.py --contention [--repeats 5] [--pairs 1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch
from torch.utils.flop_counter import FlopCounterMode

from fedwatch.cli import openmp
from worker.engine import threads as governor
from worker.engine.allocator import keep_freed_memory
from worker.engine.models import build_model
from worker.engine.overrides import build_config
from worker.engine.training.batches import batch_indices
from worker.engine.training.flat import FlatModel
from worker.engine.training.local import BACKENDS, LocalSpec

STEPS = 5


@dataclass(frozen=True)
class Case:
    name: str
    model: str
    backend: str
    k: int
    batch: int


CASES = [
    Case("cnn-k10-vmap", "cnn", "vmap", 10, 32),
    Case("cnn-k10-seq", "cnn", "sequential", 10, 32),
    Case("cnn-k100-vmap", "cnn", "vmap", 100, 32),
    Case("linear-k100-vmap", "linear", "vmap", 100, 10),
    Case("linear-k100-seq", "linear", "sequential", 100, 10),
    Case("linear-k2-vmap", "linear", "vmap", 2, 10),
    Case("cnn-b8-seq", "cnn", "sequential", 4, 8),
    Case("cnn-b128-seq", "cnn", "sequential", 4, 128),
    Case("cnn-b512-seq", "cnn", "sequential", 4, 512),
]


def timed(
    case: Case, repeats: int, threads: list[int], follow: bool = False
) -> tuple[float, dict[int, float]]:
    """The case's step FLOPs, and its median time with each thread count (`follow`: one
    budget, which the process's thread governor follows after each training, as the
    round loop does after each round)."""
    cfg = build_config({"model": {"name": case.model}, "data": {"dataset": "cifar10"}})
    torch.manual_seed(0)
    model = FlatModel(build_model(cfg.model, (3, 32, 32), 10), "classification")
    rows_per_step = case.batch * (case.k if case.backend == "vmap" else 1)
    theta = model.initial().requires_grad_()
    with FlopCounterMode(display=False) as counter:
        model.loss(theta, torch.zeros(1, 3, 32, 32), torch.zeros(1, dtype=torch.long)).backward()
    step_flops = rows_per_step * counter.get_total_flops()
    per_client = max(50, case.batch)
    n = case.k * per_client
    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(n, 3, 32, 32, generator=gen), torch.randint(0, 10, (n,), generator=gen)
    starts = torch.arange(case.k) * per_client
    sizes = torch.full((case.k,), per_client)
    rows = batch_indices(starts, sizes, STEPS, "steps", case.batch, gen)
    spec = LocalSpec(w=model.initial(), batches=rows.rows, mask=rows.mask, lr=0.01)
    train = BACKENDS[case.backend]
    times: dict[int, list[float]] = {t: [] for t in threads}
    for t in threads:  # warm-up, each thread count once
        if not follow:
            torch.set_num_threads(t)
        train(model, x, y, spec)
        governor.tick()
    for _ in range(repeats):
        for t in threads:
            if not follow:
                torch.set_num_threads(t)
            started = time.perf_counter()
            train(model, x, y, spec)
            times[t].append(time.perf_counter() - started)
            governor.tick()
    return step_flops, {t: statistics.median(v) for t, v in times.items()}


CONTENDED = {  # name in the table: the case (a `CASES` name, or a whole preset run)
    "cafed-synthetic": "cafed-synthetic",
    "W1-10": "cnn-k10-vmap",
    "W1-100": "cnn-k100-vmap",
    "W2": "linear-k100-vmap",
}
CORES = str(len(os.sched_getaffinity(0)))
SETTINGS = {  # name: the OpenMP settings of its environment
    "1 thread": {"OMP_NUM_THREADS": "1"},
    "default": {},
    "sleeping": {"OMP_NUM_THREADS": CORES, "OMP_WAIT_POLICY": "PASSIVE"},
    "spinning": {"OMP_NUM_THREADS": CORES},
}
OPENMP = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
SPIN = "import os\nos.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\nwhile True: pass"


@contextmanager
def competitor(on: bool) -> Iterator[None]:
    """A CPU-bound process pinned to the first usable core while the block runs."""
    if not on:
        yield
        return
    process = subprocess.Popen([sys.executable, "-c", SPIN])
    try:
        time.sleep(0.5)
        yield
    finally:
        process.kill()
        process.wait()


def contended_time(case: str, setting: str, repeats: int) -> float:
    """Seconds of `case` in a fresh process under `setting` (a local-training case: the
    median of `repeats`; cafed-synthetic: one run's `wall_s`)."""
    env = dict(os.environ)
    for name in OPENMP:
        env.pop(name, None)
    env.update(SETTINGS[setting])
    if case == "cafed-synthetic":
        argv = ["-m", "fedwatch.command", "simulate", case, "--set", "algorithm.name=cafed"]
    else:
        argv = [__file__, "--child", case, "--repeats", str(repeats)]
    out = subprocess.run(
        [sys.executable, *argv], env=env, capture_output=True, text=True, check=True
    ).stdout
    return float(json.loads(out)["wall_s"] if case == "cafed-synthetic" else out)


def contention(repeats: int, pairs: int) -> None:
    cores = len(os.sched_getaffinity(0))
    print(
        f"{cores} cores; load {os.getloadavg()[0]:.2f}; a fresh process per figure, median "
        f"of {pairs} sweep(s); training cases: {STEPS} local steps, median of {repeats}"
    )
    header = " ".join(f"{s:>9}" for s in SETTINGS)
    ratios = " ".join(f"{s + '÷1':>11}" for s in list(SETTINGS)[1:])
    print(f"{'case':>16} {'competitor':>10} {header} {ratios}")
    for on in (False, True):
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(pairs):
            with competitor(on):
                for name, case in CONTENDED.items():
                    for setting in SETTINGS:
                        seconds = contended_time(case, setting, repeats)
                        times.setdefault((name, setting), []).append(seconds)
        for name in CONTENDED:
            t = {s: statistics.median(times[name, s]) for s in SETTINGS}
            cells = " ".join(f"{t[s]:9.4f}" for s in SETTINGS)
            shares = " ".join(f"{t[s] / t['1 thread']:11.2f}" for s in list(SETTINGS)[1:])
            print(f"{name:>16} {'yes' if on else 'no':>10} {cells} {shares}", flush=True)


def child(name: str, repeats: int) -> None:
    """Print the case's median time with the threads of the `fedwatch` command."""
    case = next(c for c in CASES if c.name == name)
    with openmp.run_threads(openmp.threads_per_process(1)):
        budget = torch.get_num_threads()
        print(timed(case, repeats, [budget], follow=True)[1][budget])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", default=",".join(c.name for c in CASES))
    parser.add_argument("--contention", action="store_true", help="see the docstring")
    parser.add_argument("--pairs", type=int, default=1, help="sweeps with --contention")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    keep_freed_memory()
    if args.child:
        child(args.child, args.repeats)
        return
    if args.contention:
        contention(args.repeats, args.pairs)
        return
    cores = os.cpu_count() or 1
    threads = sorted({1, cores})
    chosen = set(args.cases.split(","))
    print(
        f"{cores} cores; load {os.getloadavg()[0]:.2f}; {STEPS} local steps; median of "
        f"{args.repeats}, interleaved"
    )
    print(
        f"{'case':>18} {'step MFLOP':>10} {'1 thread s':>10} {f'{cores} threads s':>12} "
        f"{'1 ÷ all':>8}"
    )
    for case in CASES:
        if case.name not in chosen:
            continue
        flops, t = timed(case, args.repeats, threads)
        print(
            f"{case.name:>18} {flops / 1e6:10.1f} {t[1]:10.4f} {t[cores]:12.4f} "
            f"{t[1] / t[cores]:8.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
