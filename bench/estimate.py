"""A run's memory estimate against its measured peak.

Each config runs in a fresh process the way a run's process executes it (claimed, then
`execute_claimed` on a SQLite database: the engine, the recorder and its checkpoints,
glibc tuned as the run's process tunes it). The process notes its resident memory once everything is
imported, resets its peak (`/proc/self/clear_refs`), runs, and reports the growth of
its peak (VmHWM); the estimate is `admission.run_estimate(config, Settings())`, what
the API checks. Image datasets are random files of the real sizes and formats under a
temporary root (MNIST's IDX files, CIFAR-10's pickled batches; the CIFAR-10 loader's
checksums are not checked in the child for them).

    python bench/estimate.py [--only NAME ...] [--keep-data DIR]

Prints, per config: the estimate, the measured growth, their ratio (the estimate must
be at least the growth, and should stay within 4 times it), and the estimate's
largest terms.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from worker.engine import run_config_for
from worker.engine.components import current

REPO = Path(__file__).resolve().parents[1]

PRIVATE = ["privacy.kind=central", "algorithm.weights=uniform"]  # central DP
# name -> (preset or None, base config, assignments); rounds cut to what reaches the
# run's peak (data, a checkpoint, a few rounds and evaluations)
CASES: dict[str, tuple[str | None, dict[str, Any], list[str]]] = {
    "example1": ("example1", {}, ["rounds=2000"]),
    "cafed-synthetic": ("cafed-synthetic", {}, []),
    "fedlaavg-mnist": (
        "fedlaavg-mnist",
        {},
        ["rounds=100", "eval.checkpoint_every=50"],
    ),
    "fedlaavg-cifar10": (
        "fedlaavg-cifar10",
        {},
        ["rounds=20", "eval.every=10", "eval.checkpoint_every=10"],
    ),
    "fedar-cifar10": (
        "fedar-cifar10",
        {},
        ["rounds=4", "eval.every=2", "eval.client_every=2", "eval.checkpoint_every=2"],
    ),
    "mifa-cifar10": ("mifa-cifar10", {}, ["rounds=2", "eval.every=1", "eval.checkpoint_every=1"]),
    "synthetic-wide": (
        None,
        {
            "data": {"n_clients": 500, "synthetic_clustered": {"dimension": 1000}},
            "algorithm": {"name": "fedavg"},
        },
        ["rounds=20"],
    ),
    "fedlaavg-mlp-5000": (
        None,
        {
            "data": {"n_clients": 5000},
            "model": {"name": "mlp", "mlp": {"hidden": 2000}},
            "algorithm": {"name": "fedlaavg"},
        },
        ["rounds=30", "eval.every=10", "eval.checkpoint_every=10"],
    ),
    "unbiased-all-train": (
        None,
        {
            "data": {"n_clients": 1000, "synthetic_clustered": {"dimension": 100}},
            "model": {"name": "mlp", "mlp": {"hidden": 500}},
            "algorithm": {"name": "unbiased"},
        },
        ["rounds=5", "eval.checkpoint_every=5"],
    ),
    # FedAvg's round as W2 (bench/peers.py): softmax regression on CIFAR-10's shape,
    # K = 100 of 1000 clients, one step of 10 samples, trained into the sum
    "fedavg-w2": (
        None,
        {
            "data": {"dataset": "cifar10", "n_clients": 1000},
            "model": {"name": "linear"},
            "algorithm": {"name": "fedavg", "participation": 100},
            "client": {"local_steps": 1, "batch_size": 10},
            "backend": "vmap",
        },
        ["rounds=10"],
    ),
    # local training's memory where it dominates: K = 50 clients of an MLP of 2 M
    # parameters, 5 steps; trained into the sum (vmap's tiles, or one client at a
    # time), into deltas (MIFA's memory, FedAvg with central privacy)
    **{
        name: (
            None,
            {
                "data": {"n_clients": 100, "synthetic_clustered": {"dimension": 1000}},
                "model": {"name": "mlp", "mlp": {"hidden": 2000}},
                "algorithm": {"name": algorithm, "participation": 50},
                "backend": backend,
            },
            ["rounds=3", "eval.checkpoint_every=3", *extra],
        )
        for name, algorithm, backend, extra in (
            ("fedavg-mlp-vmap", "fedavg", "vmap", []),
            ("fedavg-mlp-sequential", "fedavg", "sequential", []),
            ("mifa-mlp-vmap", "mifa", "vmap", []),
            ("fedavg-mlp-dp", "fedavg", "vmap", PRIVATE),
        )
    },
    "digits-cnn": (
        None,
        {"data": {"dataset": "digits", "n_clients": 50}, "model": {"name": "cnn"}},
        ["rounds=50"],
    ),
    "resnet18-digits": (
        None,
        {
            "data": {"dataset": "digits", "n_clients": 20},
            "model": {"name": "resnet18"},
            "algorithm": {"participation": 5},
        },
        ["rounds=3", "eval.checkpoint_every=3", "client.local_steps=2"],
    ),
}


def write_mnist(root: Path) -> None:
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    gen = np.random.default_rng(0)
    for prefix, n in (("train", 60_000), ("t10k", 10_000)):
        images = gen.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        header = struct.pack(">BBBB", 0, 0, 8, 3) + struct.pack(">3I", n, 28, 28)
        (raw / f"{prefix}-images-idx3-ubyte").write_bytes(header + images.tobytes())
        labels = (np.arange(n) % 10).astype(np.uint8)
        header = struct.pack(">BBBB", 0, 0, 8, 1) + struct.pack(">I", n)
        (raw / f"{prefix}-labels-idx1-ubyte").write_bytes(header + labels.tobytes())


def write_cifar10(root: Path) -> None:
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True, exist_ok=True)
    gen = np.random.default_rng(0)
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        batch = {
            "data": gen.integers(0, 256, (10_000, 3072), dtype=np.uint8),
            "labels": (np.arange(10_000) % 10).tolist(),
        }
        (folder / name).write_bytes(pickle.dumps(batch))
    meta = {"label_names": [f"class{i}" for i in range(10)]}
    (folder / "batches.meta").write_bytes(pickle.dumps(meta))


def status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def child(config_json: str, workdir: str, data_root: str) -> None:
    """Run one config as the service does and print the growth of the peak RSS."""
    import gc
    import threading

    from sqlalchemy import select

    from db.migrate import upgrade
    from db.models import Run
    from db.runs import new_run
    from db.session import make_engine, make_sessionmaker
    from db.settings import Settings
    from worker.claims import claim_execution
    from worker.engine.allocator import keep_freed_memory
    from worker.execute import execute_claimed

    keep_freed_memory()
    config = run_config_for(current()).model_validate_json(config_json)
    if config.data.dataset == "cifar10":  # random batches: their files, not their checksums
        from torchvision.datasets import CIFAR10

        CIFAR10.train_list = [[name, None] for name, _ in CIFAR10.train_list]
        CIFAR10.test_list = [[name, None] for name, _ in CIFAR10.test_list]
        CIFAR10.meta = {**CIFAR10.meta, "md5": None}
    url = f"sqlite:///{workdir}/bench.sqlite3"
    upgrade(url)
    settings = Settings(database_url=url, broker_url=None, data_root=data_root)
    sessions = make_sessionmaker(make_engine(url))
    with sessions.begin() as session:
        run = new_run(config.model_dump(mode="json"), queue="cpu")
        session.add(run)
        session.flush()
        run_id = run.id
    gc.collect()
    base = status_kib("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # the peak restarts from here
    claimed = claim_execution(sessions, run_id, "bench", settings)
    assert claimed is not None
    never = threading.Event()
    execute_claimed(
        run_id, claimed.claim, sessions=sessions, settings=settings, stop=never, cancel=never
    )
    with sessions() as session:
        status, error = session.execute(select(Run.status, Run.error).where(Run.id == run_id)).one()
    growth = (status_kib("VmHWM") - base) * 1024
    print(json.dumps({"growth": growth, "status": status, "error": error}))


def measure(name: str, data_root: Path) -> None:
    from api.admission import run_estimate
    from db.settings import Settings
    from worker.engine import build_config
    from worker.engine.resources import format_bytes, largest
    from worker.presets import get_preset

    preset, base, sets = CASES[name]
    sets = [*sets, "device=cpu"]
    config = get_preset(preset).run_config(sets) if preset else build_config(base, sets)
    found = run_estimate(config, Settings())
    with tempfile.TemporaryDirectory() as workdir:
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                config.model_dump_json(),
                workdir,
                str(data_root),
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            check=False,
        )
    if out.returncode != 0:
        print(f"{name}: child failed\n{out.stderr[-3000:]}")
        return
    result = json.loads(out.stdout.strip().splitlines()[-1])
    growth = result["growth"]
    ratio = found.host_bytes / growth
    flag = "" if 1 <= ratio <= 4 else "  <-- outside [1, 4]"
    print(
        f"{name:20} estimate {format_bytes(found.host_bytes):>10}  measured "
        f"{format_bytes(growth):>10}  ratio {ratio:5.2f}  ({result['status']}){flag}"
    )
    if result["status"] != "succeeded":
        print(f"    error: {result['error']}")
    for term in largest(found.host_terms, 4):
        phase = "" if term.phase == "run" else f" [{term.phase}]"
        print(f"    {format_bytes(term.amount):>10}  {term.label}{phase}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), help="configs to measure")
    parser.add_argument("--keep-data", type=Path, help="write the fake datasets here, reuse them")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep_data or Path(scratch)
        if not (root / "MNIST").exists():
            write_mnist(root)
        if not (root / "cifar-10-batches-py").exists():
            write_cifar10(root)
        for name in args.only or CASES:
            measure(name, root)


if __name__ == "__main__":
    main()
