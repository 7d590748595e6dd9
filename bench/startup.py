"""Start-up before round 0: `fedwatch simulate` as a user runs it, per preset.

Each case runs `fedwatch simulate PRESET --set rounds=1 --out F` as a fresh process,
`--repeats` times, and reads `summary.startup_s` (the process's age at its first round:
interpreter, imports, data, model, the algorithm's set-up) and the process's whole wall
time. Cases:

- `example1` and `cafed-synthetic`: data the engine generates;
- `fedlaavg-cifar10` on CIFAR-10-format data read from its cache: the bench writes
  50 000 + 10 000 random images in CIFAR-10's on-disk format (`cifar-10-batches-py`
  pickles) under a temporary data root and parses them once with torchvision, as a
  first run does, which caches them (`worker/engine/data/cache.py`). torchvision checks
  the real files' MD5 sums; this one parse, of files that are not the real ones, skips
  that check. The timed runs then read the cache, as every later run does.

Prints the median and range of both figures per case.

    python bench/startup.py [--repeats 5] [--cases example1,cafed-synthetic,cifar10-cached]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FEDWATCH = Path(sys.executable).with_name("fedwatch")
BATCHES = [f"data_batch_{i}" for i in range(1, 6)]


def write_cifar(root: Path) -> None:
    """Random images in CIFAR-10's python pickles, 10 000 a file."""
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for name in [*BATCHES, "test_batch"]:
        data = rng.integers(0, 256, (10_000, 3072), dtype=np.uint8)
        labels = rng.integers(0, 10, 10_000).tolist()
        with open(folder / name, "wb") as f:
            pickle.dump({"data": data, "labels": labels}, f)
    classes = ["airplane", "automobile", "bird", "cat", "deer"]
    classes += ["dog", "frog", "horse", "ship", "truck"]
    with open(folder / "batches.meta", "wb") as f:
        pickle.dump({"label_names": classes}, f)


def prime_cache(root: Path) -> float:
    """Parse the files once through the engine's loader (torchvision, then the cache),
    without torchvision's checksum of the real files; seconds taken."""
    from torchvision.datasets import cifar

    from worker.engine.data.vision import torchvision_pool

    cifar.check_integrity = lambda *args, **kwargs: True  # the files' and the meta's
    started = time.perf_counter()
    torchvision_pool("cifar10", str(root), download=False)
    return time.perf_counter() - started


def run(args: list[str], out: Path) -> tuple[float, float]:
    """(startup_s, process wall s) of one `fedwatch simulate`."""
    started = time.perf_counter()
    cmd = [str(FEDWATCH), "simulate", *args, "--set", "rounds=1", "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    wall = time.perf_counter() - started
    return float(json.loads(out.read_text())["summary"]["startup_s"]), wall


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):5.2f} s ({min(values):.2f}–{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", default="example1,cafed-synthetic,cifar10-cached")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="startup-bench-") as name:
        tmp = Path(name)
        os.environ["FEDWATCH_DATA_ROOT"] = name  # `data.root` lies inside it, as on a server
        cases: dict[str, list[str]] = {
            "example1": ["example1"],
            "cafed-synthetic": ["cafed-synthetic"],
        }
        if "cifar10-cached" in args.cases:
            root = tmp / "data"
            write_cifar(root)
            print(f"CIFAR-10-format files written; first parse {prime_cache(root):.2f} s")
            cases["cifar10-cached"] = ["fedlaavg-cifar10", "--set", f"data.root={root}"]
        print(f"{'case':>16} {'startup_s (summary)':>24} {'whole process':>24}")
        for case, cmd in cases.items():
            if case not in args.cases.split(","):
                continue
            results = [run(cmd, tmp / "out.json") for _ in range(args.repeats)]
            startups, walls = [r[0] for r in results], [r[1] for r in results]
            print(f"{case:>16} {spread(startups):>24} {spread(walls):>24}", flush=True)


if __name__ == "__main__":
    main()
