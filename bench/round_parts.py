"""Where an overhead-bound round's time goes: `bench/peers.py`'s W2 (softmax regression
on 3×32×32, 1000 clients of 20 samples, K = 100, 1 step × batch 10, evaluated every
round on 2000 test rows), in this process, part by part.

The round's own methods are wrapped with timers (nothing else changes):

- draw: the availability model's `mask`;
- selection: the algorithm's `select` and the trainer's `work` (the plan);
- batches: drawing the batch rows (`batch_indices`) and gathering them (`gather`);
- arithmetic: the gradients and losses (the stacked model's step, less the gather; W2's
  one plain step makes FedAvg's weighted sum of the deltas there, −η and the weights
  folded into the gradient's product: `Algorithm.summed`);
- optimiser: the rest of local training (the local SGD update);
- aggregate: the algorithm's weights (`summed`, or `aggregate` where the deltas are
  made) and the server's step;
- tracker: the client metrics (staleness, bias) and the summary's `observe`;
- evaluation: the global model on the test set;
- records: the rest of the round (the record, the metrics' dict, the loop).

Prints the median of each part over the timed rounds (after `--warmup` rounds), its
share, and the round against the target of the issue: at most 2× (arithmetic +
evaluation), and against the useful work at the core's matmul rate. `--clock cpu`
times by the process's CPU time (less inflated by other processes on a busy machine).
One thread, as `bench/peers.py --threads 1`.

    python bench/round_parts.py [--rounds 60] [--warmup 5] [--clock wall|cpu]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PARTS = (
    "draw",
    "selection",
    "batches",
    "arithmetic",
    "optimiser",
    "aggregate",
    "tracker",
    "evaluation",
    "records",
)


class Timers:
    """Seconds per part in the current round; nested timers subtract from their parent."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.now: dict[str, float] = defaultdict(float)
        self.rounds: list[dict[str, float]] = []

    def wrap(self, part: str, fn: Callable[..., Any], inside: str | None = None) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            began = self.clock()
            out = fn(*args, **kwargs)
            spent = self.clock() - began
            self.now[part] += spent
            if inside is not None:
                self.now[inside] -= spent
            return out

        return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60, help="timed rounds")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--clock", default="wall", choices=["wall", "cpu"])
    args = parser.parse_args()
    import numpy as np
    import torch

    from worker.engine.allocator import keep_freed_memory

    keep_freed_memory()  # as the `fedwatch` command does
    torch.set_num_threads(1)
    from bench import peers
    from worker.engine.loop import Simulation
    from worker.engine.sink import ListSink
    from worker.engine.training import local, trainer

    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    timers = Timers(clock)
    w = peers.WORKLOADS["W2"]
    arrays = peers.fake_data(w)
    load = peers.fake_dataset(w, lambda: arrays, "bench_round_parts", "bench/round_parts.py")
    total = args.warmup + args.rounds
    sim = Simulation(peers.fedwatch_config(w, load, "bench_round_parts", total, checkpoints=False))
    sim.availability.mask = timers.wrap("draw", sim.availability.mask)  # type: ignore[method-assign]
    alg = sim.algorithm
    alg.select = timers.wrap("selection", alg.select)  # type: ignore[method-assign]
    sim.trainer.work = timers.wrap("selection", sim.trainer.work)  # type: ignore[method-assign]
    sim.trainer.train = timers.wrap("optimiser", sim.trainer.train)  # type: ignore[method-assign]
    trainer.batch_indices = timers.wrap("batches", trainer.batch_indices, inside="optimiser")
    make_step = local._grad_and_loss

    def timed_step(
        model: Any,
        x: Any,
        y: Any,
        theta: Any,
        batch: int,
        x_values: Any,
        combine: Any = None,
    ) -> local.StepFn:
        made = make_step(model, x, y, theta, batch, x_values, combine)
        step: local.StepFn = timers.wrap("arithmetic", made, inside="optimiser")
        return step

    local._grad_and_loss = timed_step
    local.gather = timers.wrap("batches", local.gather, inside="arithmetic")
    alg.summed = timers.wrap("aggregate", alg.summed)  # type: ignore[method-assign]
    alg.aggregate = timers.wrap("aggregate", alg.aggregate)  # type: ignore[method-assign]
    sim.server.step = timers.wrap("aggregate", sim.server.step)  # type: ignore[method-assign]
    tracker = sim.tracker
    tracker.client_metrics = timers.wrap("tracker", tracker.client_metrics)  # type: ignore[method-assign]
    tracker.observe = timers.wrap("tracker", tracker.observe)  # type: ignore[method-assign]
    sim.evaluate = timers.wrap("evaluation", sim.evaluate)  # type: ignore[method-assign]
    round_fn = sim.round

    def timed_round(t: int) -> Any:
        timers.now.clear()
        began = clock()
        record = round_fn(t)
        spent = clock() - began
        timers.now["records"] = spent - sum(timers.now.values())
        timers.now["round"] = spent
        timers.rounds.append(dict(timers.now))
        return record

    sim.round = timed_round  # type: ignore[method-assign]
    sim.run(ListSink())
    timed = timers.rounds[args.warmup :]
    med = {p: statistics.median(r.get(p, 0.0) for r in timed) for p in (*PARTS, "round")}
    print(
        f"W2 round by part: {args.rounds} timed rounds after {args.warmup}; {args.clock} "
        f"clock; 1 thread; torch {torch.__version__}; load {os.getloadavg()[0]:.2f}"
    )
    print(f"{'part':>11} {'ms':>8} {'share':>6}")
    for p in PARTS:
        print(f"{p:>11} {med[p] * 1e3:8.3f} {med[p] / med['round']:6.1%}")
    parts_sum = sum(med[p] for p in PARTS)
    print(f"{'round':>11} {med['round'] * 1e3:8.3f} (parts' medians add to {parts_sum * 1e3:.3f})")
    floor = med["arithmetic"] + med["evaluation"]
    print(
        f"arithmetic + evaluation {floor * 1e3:.3f} ms; round ÷ that {med['round'] / floor:.2f} "
        f"(target ≤ 2); mean round {np.mean([r['round'] for r in timed]) * 1e3:.3f} ms"
    )
    d, classes = int(np.prod(w.shape)), peers.N_CLASSES
    flops = 2 * 2 * w.k * w.batch * d * classes + 2 * peers.TEST * d * classes
    rate = matmul_rate(clock)
    print(
        f"useful work {flops / 1e6:.0f} MFLOP (logits and ∇W of K·B rows, the test logits); "
        f"at this core's matmul rate ({rate / 1e9:.0f} GFLOP/s, 1024² `torch.mm`) "
        f"{flops / rate * 1e3:.3f} ms; round ÷ that {med['round'] * rate / flops:.1f}"
    )


def matmul_rate(clock: Callable[[], float]) -> float:
    """FLOP/s of a 1024² float32 `torch.mm` on this thread (the best of 5 after one)."""
    import torch

    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    times = []
    for _ in range(6):
        began = clock()
        torch.mm(a, b)
        times.append(clock() - began)
    return 2 * 1024**3 / min(times[1:])


if __name__ == "__main__":
    main()
