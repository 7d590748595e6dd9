"""How near the CPU's float32 limit FedWatch's CNN round runs, side by side in one run.

1. The machine's float32 matmul rate: `torch.mm` of 2048×2048 matrices, median of
   repeats, with the thread count FedWatch would use (all cores unless --threads).
2. FedWatch's round on workload W1 with K = 100: the tutorial CNN (62 006 parameters)
   on CIFAR-shaped inputs, 100 clients × 5 local steps × batch 32, through the `vmap`
   backend (stacked layers). Its useful work is counted with torch's FLOP counter
   (`torch.utils.flop_counter.FlopCounterMode`: matmuls and convolutions, forward and
   backward) on one client's step through the plain model, times K × steps (counted on
   the stacked model itself, a grouped convolution would be counted as if every client
   convolved every other's channels); then the round is timed over repeats,
   interleaved with the matmul.

Prints GFLOP/s of both, their ratio, and the round time the matmul rate would allow.

    python bench/roofline.py [--clients 100] [--steps 5] [--batch 32] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch
from torch.utils.flop_counter import FlopCounterMode

from worker.engine.allocator import keep_freed_memory
from worker.engine.models import build_model
from worker.engine.overrides import build_config
from worker.engine.training.batches import batch_indices
from worker.engine.training.flat import FlatModel
from worker.engine.training.local import LocalSpec, train_vmap

MATMUL_N = 2048


def matmul_gflops() -> float:
    a, b = torch.randn(MATMUL_N, MATMUL_N), torch.randn(MATMUL_N, MATMUL_N)
    torch.mm(a, b)  # warm-up
    started = time.perf_counter()
    torch.mm(a, b)
    return 2 * MATMUL_N**3 / (time.perf_counter() - started) / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--per-client", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    keep_freed_memory()
    torch.manual_seed(0)

    cfg = build_config({"model": {"name": "cnn"}, "data": {"dataset": "cifar10"}})
    model = FlatModel(build_model(cfg.model, (3, 32, 32), 10), "classification")
    n = args.clients * args.per_client
    x = torch.randn(n, 3, 32, 32)
    y = torch.randint(0, 10, (n,))
    starts = torch.arange(args.clients) * args.per_client
    sizes = torch.full((args.clients,), args.per_client)
    w = model.initial()
    gen = torch.Generator().manual_seed(0)
    batches = batch_indices(starts, sizes, args.steps, "steps", args.batch, gen)
    spec = LocalSpec(w=w, batches=batches.rows, mask=batches.mask, lr=0.01)

    train_vmap(model, x, y, spec)  # warm-up: traces the stacked model
    with FlopCounterMode(display=False) as counter:
        loss = model.loss(w.clone().requires_grad_(), x[: args.batch], y[: args.batch])
        loss.backward()
    flops = counter.get_total_flops() * args.clients * args.steps

    rounds, peaks = [], []
    for _ in range(args.repeats):
        peaks.append(matmul_gflops())
        started = time.perf_counter()
        train_vmap(model, x, y, spec)
        rounds.append(time.perf_counter() - started)
    peak, round_s = statistics.median(peaks), statistics.median(rounds)
    achieved = flops / round_s / 1e9
    print(f"threads: {args.threads}")
    print(f"matmul {MATMUL_N}x{MATMUL_N} float32: {peak:.1f} GFLOP/s (median of {len(peaks)})")
    print(
        f"W1 round (CNN, K = {args.clients}, {args.steps} steps x batch {args.batch}): "
        f"{flops / 1e9:.2f} GFLOP counted, {round_s:.3f} s (median of {len(rounds)}; "
        f"range {min(rounds):.3f}-{max(rounds):.3f})"
    )
    print(f"achieved: {achieved:.1f} GFLOP/s = {100 * achieved / peak:.0f} % of the matmul rate")
    print(f"a round at the matmul rate would take {flops / peak / 1e9:.3f} s")


if __name__ == "__main__":
    main()
