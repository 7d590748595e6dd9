"""What a run costs as the population grows: N = 10³ … 10⁶ clients, K = 100, FedAvg and
FedLaAvg (a memory of every client's latest update), on generated data.

Each (N, algorithm) runs in a fresh process: `synthetic_clustered` (CA-Fed's generator,
10 features) with `--train` training and `--test` test rows per client, the logistic
model, Bernoulli availability p = 0.5, `--rounds` rounds evaluated only after the last.
A sink notes the time of each round's record, so the figures are:

- start-up: from `simulate` to the end of round 0, less one round (data generation,
  model, availability, the first traces);
- s/round: the median round before the last (training, aggregation, availability
  draws, the round's client metrics: a round without evaluation), and its ratio to
  the smallest N;
- draw: the median time of a round's availability draw (the model's `mask`), and the
  round without it ("less draw") with its ratio to the smallest N: what the issue's
  "per-round costs independent of N apart from the availability draws" reads;
- tracker: the median time of a round's client metrics (staleness, bias) over the
  second half of the rounds, where those that grow with the clients heard from show;
- evaluation: the last round less the median round (the N·`--test` test rows);
- peak memory: the process's peak resident set.

    python bench/population.py [--clients 1000,10000,100000,1000000] [--rounds 20]
        [--device cpu|cuda] [--clock wall|cpu]

`--clock cpu` times every figure by the process's CPU time rather than the wall clock:
on a machine shared with other work, what the process itself spent.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

from fedwatch.cli import openmp

ALGORITHMS = ("fedavg", "fedlaavg")


def child(args: argparse.Namespace) -> dict[str, float]:
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    from torch import Tensor

    from worker.engine import ListSink, RoundRecord, build_config
    from worker.engine.loop import Simulation

    class Clocked(ListSink):
        def __init__(self) -> None:
            super().__init__()
            self.ends: list[float] = []

        def on_round(self, record: RoundRecord) -> None:
            self.ends.append(clock())

    n, algorithm = args.child.split(":")
    config = build_config(
        {
            "device": args.device,
            "data": {
                "dataset": "synthetic_clustered",
                "n_clients": int(n),
                "synthetic_clustered": {
                    "train_per_client": args.train,
                    "test_per_client": args.test,
                },
            },
            "model": {"name": "linear"},
            "algorithm": {"name": algorithm, "participation": 100},
            "availability": {"kind": "bernoulli"},
            "rounds": args.rounds,
            "eval": {"every": args.rounds, "checkpoint_every": args.rounds + 1},
        }
    )
    sink = Clocked()
    started = clock()
    sim = Simulation(config)
    draws: list[float] = []
    mask = sim.availability.mask

    def timed_mask(t: int) -> Tensor:
        began = clock()
        out = mask(t)
        draws.append(clock() - began)
        return out

    sim.availability.mask = timed_mask  # type: ignore[method-assign]
    tracked: list[float] = []
    client_metrics = sim.tracker.client_metrics

    def timed_tracker(*a: Any, **kw: Any) -> dict[str, float]:
        began = clock()
        out = client_metrics(*a, **kw)
        tracked.append(clock() - began)
        return out

    sim.tracker.client_metrics = timed_tracker  # type: ignore[method-assign]
    sim.run(sink)
    gaps = [b - a for a, b in zip(sink.ends, sink.ends[1:], strict=False)]
    per_round = statistics.median(gaps[:-1])
    draw = statistics.median(draws[1:-1])
    return {
        "startup_s": sink.ends[0] - started - per_round,
        "round_s": per_round,
        "draw_s": draw,
        "tracker_s": statistics.median(tracked[len(tracked) // 2 :]),
        "eval_s": gaps[-1] - per_round,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="1000,10000,100000,1000000")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--train", type=int, default=10, help="training rows per client")
    parser.add_argument("--test", type=int, default=1, help="test rows per client")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument(
        "--clock",
        default="wall",
        choices=["wall", "cpu"],
        help="time every figure by the wall clock, or by the process's CPU time (which "
        "other processes on a busy machine inflate less)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        with openmp.run_threads(openmp.threads_per_process(1)):  # as `fedwatch simulate`
            print(json.dumps(child(args)))
        return
    print(
        f"{len(os.sched_getaffinity(0))} cores, the `fedwatch` command's threads; "
        f"load {os.getloadavg()[0]:.2f}; {args.rounds} rounds, K = 100, "
        f"{args.train} training and {args.test} test rows a client, on {args.device}; "
        f"{args.clock} clock"
    )
    print(
        f"{'N':>9} {'algorithm':>9} {'start-up s':>10} {'s/round':>8} {'÷ smallest N':>12} "
        f"{'draw s':>7} {'less draw':>9} {'÷ smallest N':>12} {'tracker s':>9} {'eval s':>7} "
        f"{'test rows':>9} {'peak MB':>8}"
    )
    first: dict[str, tuple[float, float]] = {}
    for n in [int(c) for c in args.clients.split(",")]:
        for algorithm in ALGORITHMS:
            argv = [__file__, "--child", f"{n}:{algorithm}", "--rounds", str(args.rounds)]
            argv += ["--train", str(args.train), "--test", str(args.test), "--device", args.device]
            argv += ["--clock", args.clock]
            out = subprocess.run(
                [sys.executable, *argv], capture_output=True, text=True, check=True
            ).stdout
            r = json.loads(out.strip().splitlines()[-1])
            less = r["round_s"] - r["draw_s"]
            base, base_less = first.setdefault(algorithm, (r["round_s"], less))
            print(
                f"{n:>9} {algorithm:>9} {r['startup_s']:10.2f} {r['round_s']:8.4f} "
                f"{r['round_s'] / base:12.2f} {r['draw_s']:7.4f} {less:9.4f} "
                f"{less / base_less:12.2f} {r['tracker_s']:9.4f} {r['eval_s']:7.3f} "
                f"{n * args.test:>9} {r['peak_mb']:8.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
