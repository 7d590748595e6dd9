"""LEAF's FEMNIST at its real size: reading it, and a FEMNIST-CNN round.

1. Writes a LEAF-format FEMNIST to a temporary directory: `--users` writers (3 550)
   holding `--samples` samples (805 263, LEAF paper Table 1) in all, with sizes drawn
   from a log-normal (σ 0.5) and each user's samples split 9:1 into train and test as
   LEAF's `--tf 0.9`, 100 writers a file as LEAF's preprocessing writes them. The pixels
   are synthetic: LEAF's floats k/255, 80 % of them the white background 1.0 as in
   FEMNIST's scans, the rest uniform bytes; the labels uniform over 62 classes.
2. Loads it in a child process (`load_data`, the engine's loader: FederatedData as a
   run holds it) and prints the load time and the child's peak resident memory
   (targets ≤ 30 s, ≤ 2 GB), and what the images take as held (bytes): once parsing the
   JSON (which fills the data root's cache), once more from the cache.
3. Times FedAvg rounds of LEAF's CNN (`leaf_cnn`) at K = 10 and 100 against Flower on
   the same data, `bench/peers.py`'s way: its workloads FEMNIST-10 and FEMNIST-100
   (generated 28×28 images, LEAF's batch 10; that file says what each side runs), one
   repeat, FedWatch on its stacked (vmap) and sequential backends and Flower (with
   `num_cpus` 1) where `.venv-peers` is installed (`make .venv-peers/.installed`;
   skipped, and said, where it is not). `bench/peers.py --workloads
   FEMNIST-10,FEMNIST-100` runs the same with repeats and pfl-research too. Then
   LEAF's Shakespeare LSTM at K = 10, vmap (through torch.func's fallback for LSTM
   kernels) against sequential in CPU time, the measurement behind `backend: auto`
   training recurrent models sequentially.

    python bench/datasets.py [--users 3550] [--samples 805263] [--rounds R]
        [--threads 2] [--seed 0] [--skip-load] [--skip-rounds] [--ks 10,100]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from worker.engine import section_class

ROOT = Path(__file__).resolve().parents[1]
PER_FILE = 100  # writers per file, as LEAF's FEMNIST preprocessing writes them
PIXELS = 784
BACKGROUND = 0.8
VALUES = np.array([repr(k / 255) for k in range(256)], dtype=object)


def sizes(users: int, samples: int, rng: np.random.Generator) -> np.ndarray:
    """Samples per user, at least 2 (one train, one test), summing to `samples`."""
    weights = rng.lognormal(0.0, 0.5, users)
    counts = np.maximum(2, np.floor(weights / weights.sum() * samples)).astype(np.int64)
    counts[np.argmax(counts)] += samples - counts.sum()
    return counts


def user_json(n: int, rng: np.random.Generator) -> str:
    """One user's {"x": [...], "y": [...]}, the floats written as Python's repr of k/255
    (what LEAF's `json.dump` of `vec / 255` writes)."""
    pixels = rng.integers(0, 256, (n, PIXELS))
    pixels[rng.random((n, PIXELS)) < BACKGROUND] = 255
    rows = ",".join("[" + ",".join(row) + "]" for row in VALUES[pixels].tolist())
    labels = ",".join(map(str, rng.integers(0, 62, n).tolist()))
    return f'{{"x":[{rows}],"y":[{labels}]}}'


def write_femnist(root: Path, users: int, samples: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    counts = sizes(users, samples, rng)
    test = np.maximum(1, np.rint(counts * 0.1)).astype(np.int64)
    for split in ("train", "test"):
        (root / "femnist" / "data" / split).mkdir(parents=True, exist_ok=True)
    for lo in range(0, users, PER_FILE):
        names = [f"f{u:04d}_{u % 100:02d}" for u in range(lo, min(lo + PER_FILE, users))]
        for split, n in (("train", counts - test), ("test", test)):
            part = n[lo : lo + len(names)].tolist()
            body = ",".join(f'"{u}":{user_json(k, rng)}' for u, k in zip(names, part, strict=True))
            head = f'"users":{json.dumps(names)},"num_samples":{json.dumps(part)}'
            doc = f'{{{head},"user_data":{{{body}}}}}'
            (root / "femnist" / "data" / split / f"all_data_{lo // PER_FILE}.json").write_text(doc)


def load_child(root: str, users: int) -> None:
    """Loads the folder as a run does; prints seconds, peak memory and the data's bytes."""
    from worker.engine.components import current
    from worker.engine.data import load_data
    from worker.engine.sections import DataSection

    cfg = section_class(current(), DataSection)(dataset="femnist", root=root, n_clients=users)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # torch, the engine
    start, cpu = time.perf_counter(), time.process_time()
    data = load_data(cfg, seed=0)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    held = sum(t.numel() * t.element_size() for t in (data.x_train, data.x_test))
    samples = int(data.train_offsets[-1]) + len(data.y_test)
    got = {
        "seconds": seconds,
        "cpu": cpu,
        "peak": peak,
        "before": before,
        "held": held,
        "samples": samples,
    }
    print(json.dumps(got))


def child(*argv: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, __file__, *argv], env=env, check=True, capture_output=True, text=True
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def lstm_backends(threads: int, k: int = 10, repeats: int = 3) -> None:
    """LEAF's LSTM trained by both backends on the same batches (K clients, 2 steps ×
    batch 10 of 80 token ids): the CPU time of each, the median of `repeats`
    interleaved runs after a warm-up of each (CPU time, which a busy machine
    stretches less than wall time)."""
    import torch

    from worker.engine.components import current
    from worker.engine.models import build_model
    from worker.engine.sections import ModelSection
    from worker.engine.training.batches import batch_indices
    from worker.engine.training.flat import FlatModel
    from worker.engine.training.local import BACKENDS, LocalSpec

    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(0)
    x = torch.randint(0, 80, (k * 20, 80), generator=gen, dtype=torch.uint8)
    y = torch.randint(0, 80, (k * 20,), generator=gen)
    built = build_model(section_class(current(), ModelSection)(name="leaf_lstm"), (80,), 80)
    model = FlatModel(built, "classification")
    rows = batch_indices(torch.arange(k) * 20, torch.full((k,), 20), 2, "steps", 10, gen)
    spec = LocalSpec(w=model.initial(), batches=rows.rows, mask=rows.mask, lr=0.1)
    cpu: dict[str, list[float]] = {"vmap": [], "sequential": []}
    for repeat in range(repeats + 1):
        for name, train in BACKENDS.items():
            start = time.process_time()
            train(model, x, y, spec)
            if repeat:
                cpu[name].append(time.process_time() - start)
    vmap, seq = (statistics.median(cpu[n]) for n in ("vmap", "sequential"))
    print(
        f"Shakespeare LSTM, K = {k}, 2 steps × batch 10, {threads} threads: vmap "
        f"(torch.func's fallback) {vmap:.2f} s of CPU, sequential {seq:.2f} s: "
        f"vmap/sequential {vmap / seq:.1f}×"
    )


def femnist_rounds(ks: list[int], rounds: int | None, threads: int) -> None:
    """A FEMNIST-CNN round at each K, FedWatch's backends against Flower where it is
    installed: `bench/peers.py`'s FEMNIST-K workloads, one repeat."""
    from bench import peers

    flower = peers.ensure(peers.FLOWER_ENV, "flwr", install=False)
    print(f"Flower: {flower or 'not installed (make .venv-peers/.installed), skipped'}")
    args = argparse.Namespace(device="cpu", threads=threads, repeats=1)
    for k in ks:
        w = peers.WORKLOADS[f"FEMNIST-{k}"]
        w = w if rounds is None else replace(w, rounds=rounds)
        env = peers.child_env(threads)
        got = peers.bench_workload(w, args, ["flower"] if flower else [], [1], env)
        line = ", ".join(f"{b} {s.round_s:.2f} s" for b, s in got.backends.items())
        if "Flower" in got.sides:
            ours, theirs = got.sides["FedWatch"], got.sides["Flower"].round_s
            line += (
                f"; Flower {theirs:.2f} s, {theirs / ours.round_s:.2f}× FedWatch's ({ours.note})"
            )
        print(
            f"FEMNIST CNN, K = {k}, {w.steps} steps × batch {w.batch}, {threads} threads: "
            f"a round: {line}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=3550)
    parser.add_argument("--samples", type=int, default=805_263)
    parser.add_argument("--rounds", type=int, help="timed rounds (default: bench/peers.py's)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--skip-rounds", action="store_true")
    parser.add_argument("--ks", default="10,100", help="the CNN's K values, of 10, 100 ('': none)")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",") if k]
    if unknown := [k for k in ks if k not in (10, 100)]:
        parser.error(f"--ks: no FEMNIST workload at K = {unknown}; choose from 10, 100")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="fedwatch-leaf-") as tmp:
        if not args.skip_load:
            full = Path(tmp) / "full"
            start = time.perf_counter()
            write_femnist(full, args.users, args.samples, args.seed)
            size = sum(f.stat().st_size for f in full.rglob("*.json"))
            print(
                f"wrote {args.users} writers, {args.samples} samples: {size / 1e9:.2f} GB "
                f"of JSON in {time.perf_counter() - start:.0f} s"
            )
            for read in ("first read (JSON parsed, then cached)", "later read (the cache)"):
                got = child("--load-child", str(full), str(args.users))
                print(
                    f"{read}: {got['seconds']:.1f} s (target ≤ 30 s; "
                    f"{got.get('cpu', float('nan')):.1f} s of CPU), peak memory "
                    f"{got['peak'] / 2**30:.2f} GiB (target ≤ 2 GiB; "
                    f"{got['before'] / 2**30:.2f} GiB before loading), images as held "
                    f"{got['held'] / 2**30:.2f} GiB, {got['samples']} samples"
                )
            shutil.rmtree(full)  # the disk back before the rounds
        if args.skip_rounds:
            return
    femnist_rounds(ks, args.rounds, args.threads)
    lstm_backends(args.threads)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--load-child"]:
        load_child(sys.argv[2], int(sys.argv[3]))
    else:
        main()
