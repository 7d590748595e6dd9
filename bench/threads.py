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
Run it on a quiet machine: a thread that waits for a busy core makes all the cores
slower than one, whatever the work (W1-10 with another process spinning on one of the
two cores: 0.160 s a round with 2 threads, 0.127 s with 1).

    python bench/threads.py [--repeats 5] [--cases cnn-k10,...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import dataclass

import torch
from torch.utils.flop_counter import FlopCounterMode

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


def timed(case: Case, repeats: int, threads: list[int]) -> tuple[float, dict[int, float]]:
    """The case's step FLOPs, and its median time with each thread count."""
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
        torch.set_num_threads(t)
        train(model, x, y, spec)
    for _ in range(repeats):
        for t in threads:
            torch.set_num_threads(t)
            started = time.perf_counter()
            train(model, x, y, spec)
            times[t].append(time.perf_counter() - started)
    return step_flops, {t: statistics.median(v) for t, v in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", default=",".join(c.name for c in CASES))
    args = parser.parse_args()
    keep_freed_memory()
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
