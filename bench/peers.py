"""FedWatch, Flower and pfl-research side by side: the same FedAvg workloads, as whole
processes.

Workloads (fake data drawn with numpy from `--seed`, the same on both sides; the same
initial weights, FedWatch's model built under `torch.manual_seed(0)`):

- W1-10, W1-100: the tutorial CNN (`cnn`, 62 006 parameters on 3×32×32, 10 classes),
  100 clients of 50 samples each (contiguous equal shards), K = 10 or 100 clients per
  round, 5 local SGD steps × batch 32 drawn at random with replacement, lr 0.01, no
  momentum; 5 timed rounds.
- W2: softmax regression (`linear` on the flattened 3×32×32, 30 730 parameters), 1000
  clients of 20 samples each, K = 100, 1 step × batch 10, lr 0.01; 10 timed rounds.
- FEMNIST-10, FEMNIST-100: LEAF's FEMNIST CNN (`leaf_cnn`, 6 603 710 parameters on
  1×28×28, 62 classes), 100 or 200 clients of 100 samples each, K = 10 or 100, 2 local
  SGD steps × LEAF's batch 10, lr 0.05 (LEAF's 0.004 would leave the model at chance
  in these few rounds); 2 or 1 timed rounds.
- Shakespeare-10: LEAF's character LSTM (`leaf_lstm`: embedding 8, two LSTM layers of
  256, 819 920 parameters) on sequences of 80 token ids of an 80-token alphabet, the
  next token the label; 100 clients of 100 sequences, K = 10, 2 steps × batch 10, lr
  0.8 (LEAF's); 1 timed round.

The images are smooth class templates (one per class, C×(H/4)×(W/4) normals upsampled
×4), scaled by 2 for W1, 0.2 for W2 and 1 for FEMNIST (so that no model is at chance or
at 100% after its rounds), plus N(0, 1) pixel noise, with uniform labels. The token
sequences are walks of a Markov chain whose transition logits are 2 × N(0, 1), as
uint8 ids (LEAF's Shakespeare's form). 2000 test samples drawn the same way (200 for
the LEAF workloads, whose evaluation would otherwise cost as much as their training).
The bench writes them, and the initial weights, to a temporary directory as `.npy`
files that every side reads. The clients hold equal contiguous shards (LEAF's writers
differ in size; a round's cost here depends on K, the steps and the batch only).

FedWatch runs each LEAF workload twice, one side per backend: `vmap` (the stacked
form: `leaf_cnn` through FedWatch's stacked layers; `leaf_lstm` through
`torch.func.vmap`, which has no batching rule for the LSTM kernel and runs it one
client at a time, as the run's line says) and `sequential`; "FedWatch" in the
summary is the one `backend: auto` picks (sequential for both: the LSTM is recurrent,
and the CNN's 6.6 M parameters are past `LARGE_MODEL`), and a second table gives both
against the peers.

- FedWatch: the real engine (`worker.engine.loop.Simulation(config).run(sink)`, what
  `simulate(config, sink)` does; the bench checks its initial weights against the
  shared ones), the data registered for the child process as the dataset
  `bench_peers` (a loader returning `FederatedData`), algorithm `fedavg` with
  participation K, `availability.kind=always`, backend `auto` (or the LEAF workloads'
  two), evaluated every round.
- Flower (`bench/peers_flower.py`): `run_simulation` on Ray, a ServerApp with
  `FedAvg(fraction_train=K/N, fraction_evaluate=0)` and `strategy.start(...,
  evaluate_fn=central accuracy on the test set)`, a ClientApp written like Flower's
  quickstart-pytorch that trains its shard as FedWatch's clients do. Run with each
  `client_resources.num_cpus` of `--flower-cpus` (default 1 and 2; Ray's own CPU count
  is the machine's); Flower's figures are those of its best `num_cpus`, for the round
  time and for the process time each (the accuracy: that of the best round time).
- pfl-research (`bench/peers_pfl.py`): `FederatedAveraging().run` on a
  `SimulatedBackend`, written as pfl's own image-classification benchmark writes it, with
  FedWatch's model (its graph exported here as `model.pt2`; the LSTM stays one
  `aten.lstm` node, PyTorch's own kernel) and a central evaluation
  every iteration; pfl trains the cohort one user after another in one process. What
  differs from pfl's benchmark, to do the same work, is listed in that file.

Both evaluate the global model on the whole test set every round, so a round is
training, aggregation and one evaluation on every side. Per round: the median over
the rounds after a warm-up round (FedWatch: differences of the records' `wall_s`;
Flower: time between successive `evaluate_fn` returns; pfl: between successive
`after_central_iteration` callbacks). Per process: wall clock from
the child's start to its exit (imports, Ray's start-up and shutdown included). Each
repeat runs FedWatch, then Flower with each `num_cpus`, then pfl, interleaved, so a
change in the machine's load falls on all alike. `--threads` sets OMP_NUM_THREADS, MKL's and
`torch.set_num_threads` in every child (Flower's actors and server included): with 1,
FedWatch computes on one core while Flower with `num_cpus=1` runs one actor per core.

Prints each run, then per workload the medians, the ratios peer ÷ FedWatch per round
and per process, and the final test accuracies (close, not equal: each side draws its
clients and batches from its own generators), and a summary table of the three.
FedWatch runs under this interpreter (`.venv`'s: the engine), Flower under
`.venv-peers`'s (Flower's simulation engine and torch, a Flower user's environment) and
pfl under `.venv-pfl`'s (`pfl[pytorch]` and the same torch release); the bench makes
them (`make .venv-peers/.installed .venv-pfl/.installed`) and prints the versions.

`--device cuda` trains and evaluates every side on the GPU (Flower's actors each take
a tenth of it). `--dry-run` shrinks every workload to 10 clients of 4 samples, K ≤ 5,
1 timed round and 1 repeat, to check the bench end to end in seconds. `--peers` names
the peers to run; with `--no-install` a peer whose environment is missing is reported
as missing rather than installed.

    python bench/peers.py [--workloads W1-10,W1-100,W2] [--repeats 3] [--rounds R]
        (workloads also FEMNIST-10, FEMNIST-100, Shakespeare-10)
        [--threads 1] [--flower-cpus 1,2] [--seed 0] [--peers flower,pfl]
        [--device cpu|cuda] [--dry-run] [--no-install]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FLOWER_ENV = ROOT / ".venv-peers"
PFL_ENV = ROOT / ".venv-pfl"
DATASET = "bench_peers"
N_CLASSES = 10
TEST = 2000
EVAL_BATCH = 2048
# torch.func's warning where vmap runs an operation one client at a time (no batching rule)
FALLBACK = re.compile(r"not yet implemented the batching rule for (\S+?)\.? ")


@dataclass(frozen=True)
class Workload:
    """One FedAvg setting, as both sides read it from `meta.json`."""

    name: str
    model: str
    shape: tuple[int, ...]  # an image's (C, H, W) or a token sequence's (length,)
    n_clients: int
    per_client: int
    k: int
    steps: int
    batch: int
    lr: float
    signal: float  # the class templates' scale against unit pixel noise (text: see fake_text)
    rounds: int  # timed rounds, after one warm-up round
    seed: int = 0
    n_classes: int = N_CLASSES
    test: int = TEST  # test samples, evaluated every round
    backends: tuple[str, ...] = ("auto",)  # FedWatch's, each a side of its own

    @property
    def total_rounds(self) -> int:
        return self.rounds + 1

    @property
    def text(self) -> bool:
        """Token sequences (`shape` is their length) rather than images."""
        return len(self.shape) == 1

    def tiny(self) -> Workload:
        """The same setting on 10 clients of 4 samples, for `--dry-run`."""
        return replace(
            self, n_clients=10, per_client=4, k=min(self.k, 5), rounds=1, test=min(self.test, 100)
        )


# LEAF's models on their datasets' shapes: FedWatch on both backends, a smaller test set.
LEAF_BACKENDS = ("vmap", "sequential")
LEAF_FEMNIST: dict[str, Any] = {"n_classes": 62, "test": 200, "backends": LEAF_BACKENDS}
LEAF_SHAKESPEARE: dict[str, Any] = {"n_classes": 80, "test": 200, "backends": LEAF_BACKENDS}

WORKLOADS = {
    "W1-10": Workload("W1-10", "cnn", (3, 32, 32), 100, 50, 10, 5, 32, 0.01, 2.0, 5),
    "W1-100": Workload("W1-100", "cnn", (3, 32, 32), 100, 50, 100, 5, 32, 0.01, 2.0, 5),
    "W2": Workload("W2", "linear", (3, 32, 32), 1000, 20, 100, 1, 10, 0.01, 0.2, 10),
    "FEMNIST-10": Workload(
        "FEMNIST-10", "leaf_cnn", (1, 28, 28), 100, 100, 10, 2, 10, 0.05, 1.0, 2, **LEAF_FEMNIST
    ),
    "FEMNIST-100": Workload(
        "FEMNIST-100", "leaf_cnn", (1, 28, 28), 200, 100, 100, 2, 10, 0.05, 1.0, 1, **LEAF_FEMNIST
    ),
    "Shakespeare-10": Workload(
        "Shakespeare-10", "leaf_lstm", (80,), 100, 100, 10, 2, 10, 0.8, 2.0, 1, **LEAF_SHAKESPEARE
    ),
}


def read_workload(data: Path) -> Workload:
    raw = json.loads((data / "meta.json").read_text())
    raw["shape"], raw["backends"] = tuple(raw["shape"]), tuple(raw["backends"])
    return Workload(**raw)


def build_module(w: Workload) -> Any:
    """FedWatch's model for `w` (an `nn.Module`), freshly initialised."""
    from worker.engine.components import current
    from worker.engine.config import section_class
    from worker.engine.models import build_model
    from worker.engine.sections import ModelSection

    return build_model(section_class(current(), ModelSection)(name=w.model), w.shape, w.n_classes)


def fake_data(w: Workload) -> dict[str, np.ndarray]:
    if w.text:
        return fake_text(w)
    rng = np.random.default_rng(w.seed)
    c, h, wd = w.shape
    coarse = rng.standard_normal((w.n_classes, c, h // 4, wd // 4), dtype=np.float32)
    templates = w.signal * coarse.repeat(4, axis=2).repeat(4, axis=3)

    def draw(n: int) -> tuple[np.ndarray, np.ndarray]:
        y = rng.integers(0, w.n_classes, n)
        x = rng.standard_normal((n, c, h, wd), dtype=np.float32)
        for start in range(0, n, 4096):
            x[start : start + 4096] += templates[y[start : start + 4096]]
        return x, y

    x, y = draw(w.n_clients * w.per_client)
    xt, yt = draw(w.test)
    return {"x_train": x, "y_train": y, "x_test": xt, "y_test": yt}


def fake_text(w: Workload) -> dict[str, np.ndarray]:
    """Token sequences of a Markov chain over the `n_classes` tokens (its transition
    logits `signal` × N(0, 1)): `shape[0]` tokens as uint8 ids, LEAF's Shakespeare's
    form, and the next token as the label."""
    rng = np.random.default_rng(w.seed)
    logits = w.signal * rng.standard_normal((w.n_classes, w.n_classes))
    odds = np.exp(logits - logits.max(axis=1, keepdims=True))
    cumulative = np.cumsum(odds / odds.sum(axis=1, keepdims=True), axis=1)

    def draw(n: int) -> tuple[np.ndarray, np.ndarray]:
        tokens = np.empty((n, w.shape[0] + 1), dtype=np.uint8)
        tokens[:, 0] = rng.integers(0, w.n_classes, n)
        for t in range(w.shape[0]):
            u = rng.random((n, 1))
            nxt = (u > cumulative[tokens[:, t]]).sum(axis=1)
            tokens[:, t + 1] = np.minimum(nxt, w.n_classes - 1)
        return tokens[:, :-1].copy(), tokens[:, -1].astype(np.int64)

    x, y = draw(w.n_clients * w.per_client)
    xt, yt = draw(w.test)
    return {"x_train": x, "y_train": y, "x_test": xt, "y_test": yt}


def write_workload(w: Workload, data: Path, graph: bool = True) -> int:
    """The data, the initial weights (`init.npz`, by state-dict name), `meta.json` and,
    with `graph`, the model's graph (`model.pt2`, for pfl's side) under `data`; returns
    the model's parameter count."""
    import torch

    from worker.engine.training.flat import FlatModel

    for name, array in fake_data(w).items():
        np.save(data / f"{name}.npy", array)
    torch.manual_seed(0)
    module = build_module(w)
    flat = FlatModel(module, "classification")
    np.savez(data / "init.npz", **{k: v.detach().numpy() for k, v in module.state_dict().items()})
    (data / "meta.json").write_text(json.dumps(asdict(w)))
    if not graph:
        return flat.dim
    # The graph alone, for a side that cannot build FedWatch's models (pfl's).
    example = (torch.zeros(2, *w.shape, dtype=torch.uint8 if w.text else torch.float32),)
    batch = {0: torch.export.Dim("batch")}
    with warnings.catch_warnings():  # nn.LSTM's flat weights, which the graph keeps
        warnings.filterwarnings("ignore", "The tensor attributes", UserWarning)
        program = torch.export.export(module, example, dynamic_shapes=(batch,))
    torch.export.save(program, data / "model.pt2")
    return flat.dim


def initial_flat(data: Path) -> np.ndarray:
    with np.load(data / "init.npz") as init:
        return np.concatenate([init[k].reshape(-1) for k in init.files])


def fake_dataset(
    w: Workload, arrays: Callable[[], dict[str, np.ndarray]], name: str, label: str
) -> Any:
    """The workload's fake data declared as the dataset `name` (its loader, to include in
    the components); `arrays` gives them (`fake_data`'s keys) when a run loads them."""
    import torch

    from worker.engine.data.federated import FederatedData, offsets
    from worker.engine.facts import DatasetFacts
    from worker.engine.registry import dataset

    facts = DatasetFacts(
        w.n_classes,
        "text" if w.text else "image",
        "generated",
        partitions=("iid",),
        shape=w.shape,
        train=w.n_clients * w.per_client,
        test=w.test,
    )

    @dataset(name, facts=facts, label=label)
    def load(params: Any, cfg: Any, rng: np.random.Generator) -> FederatedData:
        a = {k: torch.from_numpy(v) for k, v in arrays().items()}
        return FederatedData(
            x_train=a["x_train"],
            y_train=a["y_train"],
            train_offsets=offsets([w.per_client] * w.n_clients),
            x_test=a["x_test"],
            y_test=a["y_test"],
            test_offsets=offsets([0] * w.n_clients),  # the test set is nobody's
            n_classes=w.n_classes,
            task="classification",
            client_class=a["y_train"].view(w.n_clients, w.per_client).min(dim=1).values,
            cluster=torch.zeros(w.n_clients, dtype=torch.long),
        )

    return load


# --- the FedWatch child -------------------------------------------------------------


def fedwatch_config(
    w: Workload,
    load: Any,
    dataset: str,
    rounds: int,
    *,
    backend: str = "auto",
    device: str = "cpu",
    checkpoints: bool = True,
) -> Any:
    """FedWatch's run of `w` (a `RunConfig`): FedAvg sampling K of every client
    (`availability: always`), `w`'s local steps, batch and lr, evaluated every round, on
    the fake dataset `dataset` that `load` declares (`fake_dataset`); without
    `checkpoints`, none before the end (a timed run's rounds, `bench/round_parts.py`)."""
    from worker.engine import components
    from worker.engine.config import run_config_for

    run_config = run_config_for(components.install(components.builtin().include(load)))
    return run_config.model_validate(
        {
            "name": f"peers-{w.name}",
            "seed": 0,
            "rounds": rounds,
            "device": device,
            "backend": backend,
            "data": {"dataset": dataset, "n_clients": w.n_clients, "seed": w.seed},
            "model": {"name": w.model},
            "availability": {"kind": "always"},
            "algorithm": {"name": "fedavg", "participation": w.k, "weights": "size"},
            "client": {
                "local_steps": w.steps,
                "unit": "steps",
                "batch_size": w.batch,
                "lr": w.lr,
                "momentum": 0.0,
            },
            "server": {"lr": 1.0},
            "eval": {
                "every": 1,
                "batch_size": EVAL_BATCH,
                **({} if checkpoints else {"checkpoint_every": rounds + 1}),
            },
        }
    )


def fedwatch_child(data: Path, out: Path, threads: int, device: str, backend: str) -> None:
    import torch

    from worker.engine.allocator import keep_freed_memory

    keep_freed_memory()  # as the `fedwatch` command does
    torch.set_num_threads(threads)
    from worker.engine.loop import Simulation
    from worker.engine.sink import ListSink

    w = read_workload(data)
    splits = ("x_train", "y_train", "x_test", "y_test")
    load = fake_dataset(
        w,
        lambda: {k: np.load(data / f"{k}.npy") for k in splits},
        DATASET,
        "bench/peers.py fake data",
    )
    config = fedwatch_config(w, load, DATASET, w.total_rounds, backend=backend, device=device)
    sim = Simulation(config)
    init_gap = float(np.abs(sim.w.cpu().numpy() - initial_flat(data)).max())
    sink = ListSink()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # each message once
        summary = sim.run(sink)
    walls = [0.0] + [r.wall_s for r in sink.records]
    result = {
        "round_s": [b - a for a, b in itertools.pairwise(walls)],
        "final_acc": summary["final_test_acc"],
        "init_gap": init_gap,
        "backend": sim.backend,
        "fallback": sorted({m[1] for c in caught if (m := FALLBACK.search(str(c.message)))}),
    }
    out.write_text(json.dumps(result))


# --- the parent ---------------------------------------------------------------------


@dataclass
class Run:
    side: str  # "FedWatch", "Flower cpus=N" or "pfl"
    process_s: float
    round_s: list[float]  # timed rounds (the warm-up round dropped)
    final_acc: float
    extra: dict[str, Any]

    @property
    def per_round(self) -> float:
        return statistics.median(self.round_s)


def child_env(threads: int) -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(ROOT), *filter(None, [env.get("PYTHONPATH")])]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[var] = str(threads)
    # Nothing leaves the machine (no start-up delay from unreachable telemetry).
    env["FLWR_TELEMETRY_ENABLED"] = "0"
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    return env


def run_child(side: str, cmd: list[str], out: Path, env: dict[str, str], log: Path) -> Run:
    with log.open("w") as sink:
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)
        wall = time.perf_counter() - start
    if proc.returncode != 0 or not out.exists():
        sys.exit(f"{side} exited {proc.returncode}:\n{log.read_text()[-4000:]}")
    result = json.loads(out.read_text())
    out.unlink()
    rounds = result.pop("round_s")
    acc = result.pop("final_acc")
    return Run(side, wall, rounds[1:], float(acc), result)


def spread(values: list[float], unit: str = "s") -> str:
    med = statistics.median(values)
    return f"{med:7.3f} {unit} (range {min(values):.3f}–{max(values):.3f})"


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


@dataclass
class Side:
    """One system's medians on a workload (Flower's at its best `num_cpus`)."""

    round_s: float
    process_s: float
    acc: float
    note: str = ""


@dataclass
class Figures:
    workload: str
    sides: dict[str, Side]  # "FedWatch" (the backend `auto` picks), "Flower", "pfl"
    backends: dict[str, Side] = field(default_factory=dict)  # FedWatch's, where several


def fedwatch_sides(w: Workload) -> dict[str, str]:
    """FedWatch's sides of `w` by name, each with its backend: "FedWatch" alone where
    the workload runs `auto` only, else "FedWatch vmap", "FedWatch sequential"."""
    if w.backends == ("auto",):
        return {"FedWatch": "auto"}
    return {f"FedWatch {b}": b for b in w.backends}


def auto_backend(w: Workload) -> str:
    """The backend FedWatch's `backend: auto` trains `w`'s model on."""
    from worker.engine.training.backend import resolve_backend

    return resolve_backend("auto", build_module(w))


def median_side(runs: list[Run], note: str = "") -> Side:
    return Side(
        statistics.median(r.per_round for r in runs),
        statistics.median(r.process_s for r in runs),
        statistics.median(r.final_acc for r in runs),
        note,
    )


def bench_workload(
    w: Workload, args: argparse.Namespace, peers: list[str], cpus: list[int], env: dict[str, str]
) -> Figures:
    ours = fedwatch_sides(w)
    sides: dict[str, list[Run]] = {side: [] for side in ours}
    commands: dict[str, list[str]] = {}
    if "flower" in peers:
        flower_py = str(FLOWER_ENV / "bin" / "python")
        for c in cpus:
            commands[f"Flower cpus={c}"] = [
                flower_py,
                "-m",
                "bench.peers_flower",
                "--num-cpus",
                str(c),
            ]
    if "pfl" in peers:
        commands["pfl"] = [str(PFL_ENV / "bin" / "python"), "-m", "bench.peers_pfl"]
    sides.update({name: [] for name in commands})
    with tempfile.TemporaryDirectory(prefix="peers-bench-") as name:
        tmp = Path(name)
        t0 = time.perf_counter()
        dim = write_workload(w, tmp, graph="pfl" in peers)
        print(
            f"\n== {w.name}: {w.model} ({dim} parameters), {w.n_clients} clients × "
            f"{w.per_client} samples, K = {w.k}, {w.steps} step(s) × batch {w.batch}, "
            f"lr {w.lr}; {w.rounds} timed rounds after 1 warm-up on {args.device} "
            f"(data written in {time.perf_counter() - t0:.1f} s; load {load_text()})",
            flush=True,
        )
        out = tmp / "result.json"
        common = ["--data", str(tmp), "--out", str(out), "--threads", str(args.threads)]
        common += ["--device", args.device]
        child = [sys.executable, "-m", "bench.peers", "--child-fedwatch", *common]
        order = [(s, [*child, "--backend", b]) for s, b in ours.items()]
        order += [(s, [*c, *common]) for s, c in commands.items()]
        for i in range(args.repeats):
            for side, cmd in order:
                run = run_child(side, cmd, out, env, tmp / f"{side.replace(' ', '-')}-{i}.log")
                sides[side].append(run)
                extra = ""
                if side in ours:
                    fallback = run.extra["fallback"]
                    extra = (
                        f" (backend {run.extra['backend']}, initial weights off by "
                        f"{run.extra['init_gap']:.1e}"
                        + (f"; torch.func's fallback for {', '.join(fallback)}" if fallback else "")
                        + ")"
                    )
                print(
                    f"  repeat {i + 1} {run.side:>19}: process {run.process_s:6.2f} s, "
                    f"{run.per_round:.3f} s/round, acc {run.final_acc:.4f}{extra}",
                    flush=True,
                )

    print(f"  -- {w.name}: medians over {args.repeats} repeat(s); load now {load_text()}")
    for runs in sides.values():
        print(
            f"  {runs[0].side:>19}: round {spread([r.per_round for r in runs])}, "
            f"process {spread([r.process_s for r in runs])}, final acc "
            f"{statistics.median(r.final_acc for r in runs):.4f}"
        )
    backends = {b: median_side(sides[s], f"backend {b}") for s, b in ours.items()}
    auto = auto_backend(w)
    figures = Figures(w.name, {"FedWatch": backends["auto" if "auto" in backends else auto]})
    if len(backends) > 1:
        figures.backends = backends
    if "flower" in peers:
        flower = {c: median_side(sides[f"Flower cpus={c}"]) for c in cpus}
        by_round = min(cpus, key=lambda c: flower[c].round_s)
        by_process = min(cpus, key=lambda c: flower[c].process_s)
        best = flower[by_round]
        figures.sides["Flower"] = Side(
            best.round_s,
            flower[by_process].process_s,
            best.acc,
            f"num_cpus={by_round} per round, {by_process} per process",
        )
    if "pfl" in peers:
        figures.sides["pfl"] = median_side(sides["pfl"])
    for backend, ours_side in (figures.backends or {auto: figures.sides["FedWatch"]}).items():
        for peer, got in figures.sides.items():
            if peer != "FedWatch":
                print(
                    f"  {peer} ÷ FedWatch{f' {backend}' if figures.backends else ''}: per "
                    f"round {got.round_s / ours_side.round_s:.2f}x, per process "
                    f"{got.process_s / ours_side.process_s:.2f}x {got.note}",
                    flush=True,
                )
    if figures.backends:
        vmap, sequential = figures.backends["vmap"], figures.backends["sequential"]
        print(
            f"  FedWatch sequential ÷ vmap: per round {sequential.round_s / vmap.round_s:.2f}x "
            f"(backend auto trains {w.model} on {auto})",
            flush=True,
        )
    return figures


def ensure(env: Path, module: str, install: bool) -> str | None:
    """A peer's environment (made or brought up to date by `make` unless `install` is
    false); its Python, torch and `module` versions, or None where it is missing."""
    if install:
        subprocess.run(["make", "-C", str(ROOT), f"{env.name}/.installed"], check=True)
    elif not (env / ".installed").exists():
        return None
    code = "import platform, torch; from importlib.metadata import version; print("
    code += f"platform.python_version(), torch.__version__, version({module!r}))"
    versions = subprocess.run(
        [env / "bin" / "python", "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    return "python {}, torch {}, {} {}".format(*versions[:2], module, versions[2])


def summary_table(results: list[Figures]) -> None:
    print(f"\nsummary: medians; Flower at its best num_cpus; load now {load_text()}")
    peers = [p for p in ("Flower", "pfl") if any(p in f.sides for f in results)]
    head = f"{'workload':>14} {'FedWatch s/round':>16}"
    for p in peers:
        head += f" {p + ' s/round':>14} {p + ' ÷ FW':>10}"
    head += f" {'FedWatch proc s':>15}"
    for p in peers:
        head += f" {p + ' proc s':>13} {p + ' ÷ FW':>10}"
    head += f" {'acc FedWatch':>12}" + "".join(f" {'acc ' + p:>10}" for p in peers)
    print(head)
    for f in results:
        ours = f.sides["FedWatch"]
        line = f"{f.workload:>14} {ours.round_s:16.4f}"
        for p in peers:
            s = f.sides[p]
            line += f" {s.round_s:14.4f} {s.round_s / ours.round_s:10.2f}"
        line += f" {ours.process_s:15.2f}"
        for p in peers:
            s = f.sides[p]
            line += f" {s.process_s:13.2f} {s.process_s / ours.process_s:10.2f}"
        line += f" {ours.acc:12.4f}" + "".join(f" {f.sides[p].acc:10.4f}" for p in peers)
        print(line)
    if stacked := [f for f in results if f.backends]:
        backends_table(stacked, peers)


def backends_table(results: list[Figures], peers: list[str]) -> None:
    """FedWatch's stacked (vmap) and sequential backends per round, each against the
    peers."""
    print("\nFedWatch's backends, per round: vmap (stacked) and sequential")
    head = f"{'workload':>14} {'vmap s/round':>12} {'seq s/round':>11} {'seq ÷ vmap':>10}"
    for p in peers:
        head += f" {p + ' ÷ vmap':>13} {p + ' ÷ seq':>12}"
    head += f" {'acc vmap':>8} {'acc seq':>8}"
    print(head)
    for f in results:
        vmap, seq = f.backends["vmap"], f.backends["sequential"]
        line = f"{f.workload:>14} {vmap.round_s:12.4f} {seq.round_s:11.4f}"
        line += f" {seq.round_s / vmap.round_s:10.2f}"
        for p in peers:
            peer = f.sides[p].round_s
            line += f" {peer / vmap.round_s:13.2f} {peer / seq.round_s:12.2f}"
        print(line + f" {vmap.acc:8.4f} {seq.acc:8.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="W1-10,W1-100,W2", help=f"of {list(WORKLOADS)}")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats")
    parser.add_argument("--rounds", type=int, help="timed rounds (default: per workload)")
    parser.add_argument("--threads", type=int, default=1, help="torch/OMP threads, every child")
    parser.add_argument("--flower-cpus", default="1,2", help="client_resources.num_cpus to try")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fake data")
    parser.add_argument("--peers", default="flower,pfl", help="comma-separated: flower, pfl")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--dry-run", action="store_true", help="tiny workloads, one repeat")
    parser.add_argument("--no-install", action="store_true", help="skip missing peers")
    parser.add_argument("--child-fedwatch", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--backend", default="auto", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_fedwatch:
        fedwatch_child(args.data, args.out, args.threads, args.device, args.backend)
        return
    if args.dry_run:
        args.repeats = 1
    names = [n.strip() for n in args.workloads.split(",") if n.strip()]
    if unknown := [n for n in names if n not in WORKLOADS]:
        parser.error(f"unknown workload(s) {unknown}; choose from {list(WORKLOADS)}")
    asked = [p.strip() for p in args.peers.split(",") if p.strip()]
    if unknown := [p for p in asked if p not in ("flower", "pfl")]:
        parser.error(f"unknown peer(s) {unknown}; choose from ['flower', 'pfl']")
    found = {
        p: ensure(env, module, not args.no_install)
        for p, env, module in [("flower", FLOWER_ENV, "flwr"), ("pfl", PFL_ENV, "pfl")]
        if p in asked
    }
    peers = [p for p, versions in found.items() if versions is not None]
    if str(ROOT) not in sys.path:  # this tree's `worker`, as the children import it
        sys.path.insert(0, str(ROOT))
    cpus = [int(c) for c in args.flower_cpus.split(",")]

    import torch

    described = "; ".join(f"{p}: {v or 'not installed, skipped'}" for p, v in found.items())
    print(
        f"FedWatch: python {platform.python_version()} ({sys.executable}), torch "
        f"{torch.__version__}; {described}; {os.cpu_count()} CPUs; device {args.device}; "
        f"threads {args.threads} per process; Flower num_cpus {cpus}; {args.repeats} "
        f"interleaved repeat(s); load {load_text()}",
        flush=True,
    )
    env = child_env(args.threads)
    results: list[Figures] = []
    for name in names:
        w = WORKLOADS[name]
        rounds = args.rounds if args.rounds is not None else w.rounds
        w = replace(w, rounds=rounds, seed=args.seed)
        results.append(bench_workload(w.tiny() if args.dry_run else w, args, peers, cpus, env))
    summary_table(results)


if __name__ == "__main__":
    main()
