"""What a `cafed-mnist` run costs, method by method, on the real MNIST: one run of each
of the preset's methods (150 rounds, seed 12, one thread), with its wall time, its
process CPU time (what other processes on a shared machine do not inflate as much), and
the time its rounds took in local training, in evaluation and in the rest; then the
machine's load average.

    OMP_NUM_THREADS=1 python bench/cafed_mnist.py --root DATA_ROOT [--rounds 150]
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch

from worker.engine import ListSink, simulate
from worker.engine.loop import Simulation
from worker.engine.training.trainer import Trainer
from worker.presets import get_preset


@contextmanager
def timed(spent: dict[str, float], name: str, owner: Any, attr: str) -> Iterator[None]:
    """Adds the wall time of every call of `owner.attr` to `spent[name]`."""
    original: Callable[..., Any] = getattr(owner, attr)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - start

    setattr(owner, attr, wrapper)
    try:
        yield
    finally:
        setattr(owner, attr, original)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="data root holding MNIST/raw")
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    torch.set_num_threads(1)
    preset = get_preset("cafed-mnist")
    print("method    wall s  cpu s  rounds s  training s  evaluation s  other s")
    for method in preset.compare:
        config = preset.run_config(
            [
                *method.as_overrides(),
                f"seed={args.seed}",
                f"rounds={args.rounds}",
                "device=cpu",
                f"data.root={args.root}",
            ]
        )
        spent: dict[str, float] = defaultdict(float)
        wall, cpu = time.perf_counter(), time.process_time()
        with (
            timed(spent, "train", Trainer, "train"),
            timed(spent, "eval", Simulation, "evaluate"),
            timed(spent, "rounds", Simulation, "run"),
        ):
            simulate(config, ListSink())
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        other = spent["rounds"] - spent["train"] - spent["eval"]
        print(
            f"{method.name:8} {wall:7.1f} {cpu:6.1f} {spent['rounds']:9.1f} "
            f"{spent['train']:11.1f} {spent['eval']:13.2f} {other:8.2f}"
        )
    print(f"load average (1, 5, 15 min): {os.getloadavg()}")


if __name__ == "__main__":
    main()
