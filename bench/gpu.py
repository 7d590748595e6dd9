"""The GPU path in one go (what `bench/gpu.sh` runs): four parts, one table.

1. algorithms: every registered algorithm, `--rounds-check` rounds of a small run
   (8 clients, K = 3, Markov availability, the logistic model on synthetic data), once
   on the CPU and once on `--device`: the same selections in every round, and final
   test accuracies within `--atol`.
2. peers: `bench/peers.py`'s W1-100 and W2 on `--device`, FedWatch against Flower and
   pfl-research (those whose environment is installed; one repeat, Flower at
   `num_cpus` 1; FedWatch alone in a dry run unless `--peers` names them).
3. FedLaAvg at CIFAR-10's size: 1000 clients of 50 generated 3×32×32 images (the
   labels sorted, so a client holds one class, two where its shard spans a boundary),
   K = 100, the tutorial CNN, 10 local steps × batch 5 at lr 0.05,
   diurnal availability (the `fedlaavg-cifar10` preset on generated data), 1000
   rounds evaluated every 100: rounds/s.
4. population: `bench/population.py`'s round at 10⁶ clients (FedLaAvg, K = 100).

`--dry-run` runs every part at tiny sizes (a handful of clients and rounds), to
check the whole script on the CPU in a minute or two (`--device cpu --dry-run` is
what the tests run); the figures it prints measure nothing.

    python bench/gpu.py [--device cuda|cpu] [--dry-run]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from worker.engine import run_config_for

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import peers  # noqa: E402


@dataclass
class Row:
    part: str
    setting: str
    figure: str
    against: str = ""
    verdict: str = ""


def small_run(algorithm: str, device: str, rounds: int) -> Any:
    """A few rounds of `algorithm` on `device`; the records."""
    from worker.engine import ListSink, build_config, simulate
    from worker.engine.algorithms.asynchronous import AsyncAlgorithm
    from worker.engine.components import current

    overrides = [f"algorithm.name={algorithm}", "availability.kind=markov", f"device={device}"]
    if issubclass(current().algorithms.get(algorithm).component, AsyncAlgorithm):
        overrides += ["system.kind=profiles", f"algorithm.{algorithm}.concurrency=3"]  # clocked
    base = {
        "rounds": rounds,
        "data": {"n_clients": 8, "train_per_client": 16, "test_per_client": 16},
        "algorithm": {"participation": 3},
        "client": {"local_steps": 2, "batch_size": 4, "lr": 0.1},
    }
    sink = ListSink()
    summary = simulate(build_config(base, overrides), sink)
    return sink.records, summary


def algorithms(device: str, rounds: int, atol: float) -> list[Row]:
    from worker.engine.components import current

    rows = []
    for name in current().algorithms.names():
        started = time.perf_counter()
        cpu, cpu_summary = small_run(name, "cpu", rounds)
        dev, dev_summary = small_run(name, device, rounds)
        same = sum(np.array_equal(a.selected, b.selected) for a, b in zip(cpu, dev, strict=True))
        gap = abs(cpu_summary["final_test_acc"] - dev_summary["final_test_acc"])
        ok = same == len(cpu) and gap <= atol
        rows.append(
            Row(
                "algorithm",
                name,
                f"{same}/{len(cpu)} rounds same selection; |Δacc| {gap:.1e}",
                f"CPU run ({time.perf_counter() - started:.1f} s both)",
                "ok" if ok else "DIFFERS",
            )
        )
    return rows


def peer_rows(device: str, dry_run: bool, asked: list[str]) -> list[Row]:
    found = {
        name: peers.ensure(env, module, install=False)
        for name, env, module in [
            ("flower", peers.FLOWER_ENV, "flwr"),
            ("pfl", peers.PFL_ENV, "pfl"),
        ]
        if name in asked
    }
    present = [name for name, versions in found.items() if versions is not None]
    args = argparse.Namespace(device=device, threads=1, repeats=1)
    env = peers.child_env(1)
    rows = []
    for name in ("W1-100", "W2"):
        w = peers.WORKLOADS[name]
        figures = peers.bench_workload(w.tiny() if dry_run else w, args, present, [1], env)
        ours = figures.sides["FedWatch"]
        for side, got in figures.sides.items():
            rows.append(
                Row(
                    "peers",
                    f"{name} {side}",
                    f"{got.round_s * 1e3:.2f} ms/round, acc {got.acc:.3f}",
                    "" if side == "FedWatch" else f"{got.round_s / ours.round_s:.1f}x FedWatch's",
                )
            )
        rows += [
            Row("peers", f"{name} {p}", "not installed", "", "skipped")
            for p in found
            if p not in present
        ]
    return rows


def fedlaavg_cifar(device: str, dry_run: bool) -> Row:
    from worker.engine import components
    from worker.engine.loop import Simulation
    from worker.engine.sink import ListSink

    n, k, rounds = (20, 5, 3) if dry_run else (1000, 100, 1000)
    w = peers.Workload("cifar", "cnn", (3, 32, 32), n, 50, k, 10, 5, 0.05, 2.0, rounds)

    def arrays() -> dict[str, np.ndarray]:
        data = peers.fake_data(w)
        order = np.argsort(data["y_train"], kind="stable")  # shards of one class (mostly)
        data["x_train"], data["y_train"] = data["x_train"][order], data["y_train"][order]
        return data

    load = peers.fake_dataset(w, arrays, "bench_gpu_cifar", "bench/gpu.py generated data")
    run_config = run_config_for(components.install(components.builtin().include(load)))
    config = run_config.model_validate(
        {
            "name": "gpu-fedlaavg-cifar",
            "rounds": rounds,
            "device": device,
            "data": {"dataset": "bench_gpu_cifar", "n_clients": n},
            "model": {"name": "cnn"},
            "availability": {
                "kind": "diurnal",
                "diurnal": {"strategy": "number", "period": 100, "classes_in_group0": 5},
            },
            "algorithm": {"name": "fedlaavg", "participation": k, "weights": "uniform"},
            "client": {"local_steps": 10, "batch_size": 5, "lr": 0.05},
            "eval": {"every": 100, "checkpoint_every": rounds + 1},
        }
    )
    sim = Simulation(config)
    sink = ListSink()
    summary = sim.run(sink)
    return Row(
        "fedlaavg-cifar",
        f"N {n}, K {k}, cnn, {rounds} rounds on {device}",
        f"{rounds / sim.wall_s:.1f} rounds/s ({sim.wall_s:.1f} s)",
        f"final acc {summary['final_test_acc']:.3f}",
    )


def population(device: str, dry_run: bool) -> Row:
    n, rounds = (1000, 3) if dry_run else (1_000_000, 10)
    cmd = [sys.executable, str(ROOT / "bench" / "population.py"), "--child", f"{n}:fedlaavg"]
    cmd += ["--rounds", str(rounds), "--train", "10", "--test", "1", "--device", device]
    cmd += ["--clock", "wall"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    r = json.loads(out.strip().splitlines()[-1])
    return Row(
        "population",
        f"N {n:,}, FedLaAvg, K 100 on {device}",
        f"{r['round_s'] * 1e3:.1f} ms/round (draw {r['draw_s'] * 1e3:.1f} ms)",
        f"start-up {r['startup_s']:.1f} s, peak {r['peak_mb']:.0f} MB",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    parser.add_argument("--dry-run", action="store_true", help="every part at tiny sizes")
    parser.add_argument("--rounds-check", type=int, default=20, help="rounds, part 1")
    parser.add_argument("--atol", type=float, default=1e-3, help="accuracy tolerance, part 1")
    parser.add_argument(
        "--peers",
        help="comma-separated peers to run where installed (default: flower,pfl; none in a "
        "dry run, where Ray's start alone takes a minute: `bench/peers.py --dry-run` "
        "checks them)",
    )
    args = parser.parse_args()
    asked = args.peers if args.peers is not None else "" if args.dry_run else "flower,pfl"
    import torch

    name = torch.cuda.get_device_name() if args.device == "cuda" else platform.processor()
    print(
        f"device {args.device} ({name or 'cpu'}); torch {torch.__version__}; python "
        f"{platform.python_version()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        f"{'; DRY RUN: tiny sizes, the figures measure nothing' if args.dry_run else ''}",
        flush=True,
    )
    started = time.perf_counter()
    rows = algorithms(args.device, 3 if args.dry_run else args.rounds_check, args.atol)
    rows += peer_rows(args.device, args.dry_run, [p for p in asked.split(",") if p])
    rows.append(fedlaavg_cifar(args.device, args.dry_run))
    rows.append(population(args.device, args.dry_run))
    widths = [max(len(getattr(r, f)) for r in rows) for f in ("part", "setting", "figure")]
    print(f"\n{'part':<{widths[0]}}  {'setting':<{widths[1]}}  {'figure':<{widths[2]}}  against")
    for r in rows:
        print(
            f"{r.part:<{widths[0]}}  {r.setting:<{widths[1]}}  {r.figure:<{widths[2]}}  "
            f"{r.against}{'  ' + r.verdict if r.verdict else ''}"
        )
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    if any(r.verdict == "DIFFERS" for r in rows):
        sys.exit("some algorithm's run on the device differs from its CPU run")


if __name__ == "__main__":
    main()
