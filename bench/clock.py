"""What the simulated clock costs a round: W2 of `bench/peers.py` (softmax regression,
1000 clients of 20 samples, K = 100, 1 step × batch 10, an evaluation on 2000 test
images every round) with `system.kind=none` and with `profiles` (lognormal devices, a
deadline and over-commitment, so every part of the clock runs), side by side in one
process.

The two simulations advance together, a round of one then a round of the other (which
goes first alternates), so that a machine busy with other work slows both alike; a
round is `Simulation.round` (training, aggregation, the clock, an evaluation), the first
round of each dropped. Prints the median round of each, the median of the rounds' paired
ratios (the target: ≤ 1.05), and the clock's own work on a round of 130 selected clients
timed alone.

    python bench/clock.py [--rounds 300] [--threads 2]
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
from bench.peers import WORKLOADS, Workload, fake_data, fake_dataset
from worker.engine import components, run_config_for
from worker.engine.allocator import keep_freed_memory
from worker.engine.loop import Simulation

DATASET = "bench_clock"
W2 = WORKLOADS["W2"]
TIMED = {
    "system": {"kind": "profiles"},
    "round": {"deadline_s": 1.0, "over_commit": 0.3},
}


def register(w: Workload = W2, name: str = DATASET) -> None:
    """The built-in components and the workload's fake data as the dataset `name`,
    installed."""
    arrays = fake_data(w)
    load = fake_dataset(w, lambda: arrays, name, f"{w.name} fake data (bench)")
    components.install(components.builtin().include(load))


def config(rounds: int, timed: bool) -> Any:
    base = {
        "rounds": rounds,
        "device": "cpu",
        "data": {"dataset": DATASET, "n_clients": W2.n_clients, "seed": W2.seed},
        "model": {"name": W2.model},
        "algorithm": {"name": "fedavg", "participation": W2.k},
        "client": {"local_steps": W2.steps, "batch_size": W2.batch, "lr": W2.lr},
        "eval": {"every": 1, "batch_size": 2048},
    }
    return run_config_for(components.current()).model_validate({**base, **(TIMED if timed else {})})


def paired_rounds(rounds: int) -> tuple[list[float], list[float], float]:
    """Seconds of each round without and with the clock, side by side; the dropped
    updates per round with it."""
    plain, timed = Simulation(config(rounds, False)), Simulation(config(rounds, True))
    times: dict[bool, list[float]] = {False: [], True: []}
    dropped = 0.0
    for t in range(rounds):
        for clocked in (False, True) if t % 2 == 0 else (True, False):
            sim = timed if clocked else plain
            started = time.perf_counter()
            record = sim.round(t)
            times[clocked].append(time.perf_counter() - started)
            dropped += record.metrics.get("dropped_updates", 0.0)
    return times[False][1:], times[True][1:], dropped / rounds


def clock_alone(repeats: int = 2000) -> float:
    """Seconds of the clock's work on one round of 130 selected clients: timing them,
    moving the clock, and the round's timeline."""
    sim = Simulation(config(1, timed=True))
    assert sim.clock is not None
    ids = torch.randperm(W2.n_clients, generator=torch.Generator().manual_seed(0))[:130]
    ids = ids.sort().values
    from worker.engine.algorithms import Plan

    started = time.perf_counter()
    for _ in range(repeats):
        sim.clock.now = 0.0
        sim.timed(Plan(ids), 0.0, {})
    return (time.perf_counter() - started) / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    keep_freed_memory()
    torch.set_num_threads(args.threads)
    register()
    plain, clocked, dropped = paired_rounds(args.rounds)
    ratio = statistics.median(b / a for a, b in zip(plain, clocked, strict=True))
    print(f"W2, {args.threads} threads, {args.rounds} rounds of each, side by side")
    print(f"system.kind=none:     {1e3 * statistics.median(plain):.2f} ms a round (median)")
    print(
        f"system.kind=profiles: {1e3 * statistics.median(clocked):.2f} ms a round (median; "
        f"{dropped:.0f} of 130 selected dropped a round)"
    )
    print(f"the clock alone:      {1e3 * clock_alone():.3f} ms a round")
    print(f"profiles ÷ none, median of the rounds' ratios: {ratio:.3f}")


if __name__ == "__main__":
    main()
