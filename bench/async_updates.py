"""Client updates per second of asynchronous FedBuff against a synchronous round:
W1-100 of `bench/peers.py` (the tutorial CNN on 3×32×32, 100 clients of 50 samples,
5 local steps of batch 32) on lognormal devices (`system.kind=profiles`), side by side
in one process.

- sync: FedAvg, K = 100 clients a round, every update kept;
- async: FedBuff with 100 clients training at once (`concurrency`), a server update
  every `--buffer` arrivals, each batch of arrivals trained in one stacked step from
  the versions they started from (gathered from the ring).

The simulations advance in turn (which goes first alternates), so that a machine busy
with other work slows both alike; a step is `Simulation.round` (for async, one server
update: its events, training and aggregation), evaluation left to the last round. The
first step of each is dropped. Prints each one's client updates per second (updates
that entered ÷ seconds, medians over the steps) and their ratio (the target: async
within 20 % of sync, a ratio ≥ 0.8).

    python bench/async_updates.py [--steps 8] [--buffer 100] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: bench
from bench.clock import register
from bench.peers import WORKLOADS
from worker.engine import components, run_config_for
from worker.engine.allocator import keep_freed_memory
from worker.engine.loop import Simulation

DATASET = "bench_async"
W1 = WORKLOADS["W1-100"]


def config(steps: int, buffer: int | None) -> Any:
    algorithm: dict[str, Any] = {"name": "fedavg", "participation": W1.k}
    if buffer is not None:
        algorithm = {"name": "fedbuff", "fedbuff": {"concurrency": W1.k, "buffer": buffer}}
    return run_config_for(components.current()).model_validate(
        {
            "rounds": steps + 1,
            "device": "cpu",
            "data": {"dataset": DATASET, "n_clients": W1.n_clients, "seed": W1.seed},
            "model": {"name": W1.model},
            "algorithm": algorithm,
            "client": {"local_steps": W1.steps, "batch_size": W1.batch, "lr": W1.lr},
            "system": {"kind": "profiles"},
            "eval": {"every": 1_000_000},
        }
    )


def side_by_side(steps: int, buffer: int) -> dict[str, list[float]]:
    """Client updates per second of each step of both simulations."""
    sims = {"sync": Simulation(config(steps, None)), "async": Simulation(config(steps, buffer))}
    rates: dict[str, list[float]] = {name: [] for name in sims}
    for t in range(steps):
        order = list(sims) if t % 2 == 0 else list(reversed(sims))
        for name in order:
            started = time.perf_counter()
            record = sims[name].round(t)
            seconds = time.perf_counter() - started
            rates[name].append(record.metrics["n_selected"] / seconds)
    return {name: r[1:] for name, r in rates.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--buffer", type=int, default=100)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    keep_freed_memory()
    torch.set_num_threads(args.threads)
    register(W1, DATASET)
    rates = side_by_side(args.steps, args.buffer)
    sync, asynchronous = (statistics.median(rates[n]) for n in ("sync", "async"))
    print(f"W1-100, {args.threads} threads, {args.steps - 1} steps of each, side by side")
    print(f"sync FedAvg, K = {W1.k}:                {sync:.1f} client updates/s (median)")
    print(
        f"async FedBuff, concurrency {W1.k}, buffer {args.buffer}: "
        f"{asynchronous:.1f} client updates/s (median)"
    )
    print(f"async ÷ sync: {asynchronous / sync:.3f}")


if __name__ == "__main__":
    main()
