"""FedAvg's round trained into its weighted sum (`Algorithm.summed`) against the same
round writing the (K, d) deltas and summing them, side by side: seconds per round and
the training's peak memory.

Two settings of `bench/peers.py`'s workloads, on its fake data:

- W2 (softmax regression, K = 100, one step × batch 10, `backend: vmap`): the single
  step's product makes the sum; the deltas were 12 MB written and read again a round.
- FEMNIST-100 (LEAF's CNN, 6.6 M parameters, K = 100, 2 steps × batch 10, `backend:
  sequential`): each client's delta is added to the sum as it finishes; the deltas
  were 2.6 GB.

Each (setting, way) runs in a child process of its own, so that its peak resident
memory (`ru_maxrss`) is its own: the peak during the rounds (the warm-up's included)
less the resident memory before the first. The ways alternate, `--repeats` times; the
medians are printed, and the ratios. One thread per process, as `bench/peers.py --threads 1`.

`--backend` runs every setting on that backend instead (`vmap`: FEMNIST-100 through the
stacked CNN, which keeps each client's state over its 2 steps, in tiles of clients).

    python bench/summed.py [--settings W2,FEMNIST-100] [--repeats 3] [--rounds R]
        [--backend vmap|sequential]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SETTINGS = {"W2": ("vmap", 30), "FEMNIST-100": ("sequential", 2)}  # backend, timed rounds
WAYS = ("summed", "deltas")


def child(setting: str, way: str, rounds: int, backend: str) -> dict[str, float]:
    """One run of `setting` trained `way`: seconds per round (median) and peak MB."""
    import torch

    from bench import peers
    from worker.engine.allocator import keep_freed_memory
    from worker.engine.loop import Simulation

    keep_freed_memory()  # as the `fedwatch` command does
    torch.set_num_threads(1)
    w = peers.WORKLOADS[setting]
    arrays = peers.fake_data(w)
    load = peers.fake_dataset(w, lambda: arrays, "bench_summed", "bench/summed.py")
    config = peers.fedwatch_config(
        w, load, "bench_summed", rounds + 1, backend=backend, checkpoints=False
    )
    sim = Simulation(config)
    if way == "deltas":
        sim.summed = lambda t, plan: None  # type: ignore[method-assign]
    before = _rss_mb()
    sim.round(0)  # warm-up
    times = []
    for t in range(1, rounds + 1):
        began = time.perf_counter()
        sim.round(t)
        times.append(time.perf_counter() - began)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"round_s": statistics.median(times), "peak_mb": peak - before}


def _rss_mb() -> float:
    """This process's resident memory now, in MB (`/proc/self/statm`)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", default="W2,FEMNIST-100", help=f"of {list(SETTINGS)}")
    parser.add_argument("--repeats", type=int, default=3, help="alternated repeats")
    parser.add_argument("--rounds", type=int, help="timed rounds (default: per setting)")
    parser.add_argument("--backend", choices=("vmap", "sequential"), help="every setting's")
    parser.add_argument("--child", nargs=2, metavar=("SETTING", "WAY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        setting, way = args.child
        print(json.dumps(child(setting, way, args.rounds, args.backend)))
        return
    settings = [s for s in args.settings.split(",") if s]
    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        parser.error(f"--settings: unknown {unknown}; choose from {list(SETTINGS)}")
    print(f"2 ways × {args.repeats} alternated repeats; load {os.getloadavg()[0]:.2f}")
    for setting in settings:
        backend, default_rounds = SETTINGS[setting]
        backend = args.backend or backend
        rounds = args.rounds or default_rounds
        got: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
        flags = ["--rounds", str(rounds), "--backend", backend]
        for repeat in range(args.repeats):
            for way in WAYS:
                out = subprocess.run(
                    [sys.executable, __file__, "--child", setting, way, *flags],
                    capture_output=True,
                    text=True,
                    check=True,
                    env={**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"},
                )
                result = json.loads(out.stdout.strip().splitlines()[-1])
                got[way].append(result)
                print(
                    f"  {setting} repeat {repeat + 1} {way:>6}: {result['round_s'] * 1e3:9.2f} "
                    f"ms/round, training peak +{result['peak_mb']:8.1f} MB"
                )
        med = {
            way: {k: statistics.median(r[k] for r in got[way]) for k in ("round_s", "peak_mb")}
            for way in WAYS
        }
        s, d = med["summed"], med["deltas"]
        print(
            f"{setting} ({backend}, {rounds} rounds): summed "
            f"{s['round_s'] * 1e3:.2f} ms/round, +{s['peak_mb']:.0f} MB; deltas "
            f"{d['round_s'] * 1e3:.2f} ms/round, +{d['peak_mb']:.0f} MB; deltas ÷ summed: "
            f"time {d['round_s'] / s['round_s']:.2f}×, memory "
            f"{d['peak_mb'] / max(s['peak_mb'], 1.0):.1f}×; load {os.getloadavg()[0]:.2f}"
        )


if __name__ == "__main__":
    main()
