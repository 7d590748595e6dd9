"""One CA-Fed run of the authors' code against `fedwatch simulate cafed-synthetic`.

The same run both ways: the synthetic clustered benchmark (24 clients, data seed 42,
the official data bundled in `tests/fidelity/cafed-synthetic`), CA-Fed with the flags of
the authors' `paper_experiments/synthetic/run.sh` (clients sampler `markov`, local /
server learning rates 0.01 / 0.3, 150 rounds, 2 local epochs, batch 32, oracle
estimator), on the CPU, one run seed (12 by default, one of the paper's).

- official: `run_experiment.py` of a checkout of github.com/arodio/CA-Fed (Apache
  License 2.0), run by `--python`, an interpreter of an environment where that code
  runs (torch, torchvision, numpy, scikit-learn < 1.8, tqdm, tensorboard), with a
  `cfg.json` built here from `tests/fidelity/cafed-synthetic/clients.json` whose
  `task_dir`s point at the bundled data. Its accuracies are read back from its
  TensorBoard logs (the global `Test/Metric`) by the same interpreter.
- FedWatch: `fedwatch simulate cafed-synthetic --set seed=S --set device=cpu --out F`
  (`--fedwatch`, by default the `fedwatch` next to this interpreter); its own figures
  come from the JSON it writes (`summary.wall_s` is the engine's time over the rounds,
  without the process's start-up).

Each is timed as a whole process, start-up included (wall clock around the child), in
`--runs` pairs, interleaved (official, FedWatch, official, ...), so a change in the
machine's load falls on both alike. `--threads N` sets OMP_NUM_THREADS (and MKL's) for
both children; without it both inherit this process's environment.

    python bench/cafed_official.py --official PATH --python PATH [--runs 3] [--seed 12]
        [--threads N] [--fedwatch PATH]

Prints each run's process wall time, the medians with their range, the ratio of the
medians (official / FedWatch), FedWatch's engine-only `wall_s`, and both runs' final
and time-averaged test accuracies (the time average is the mean over the 28 logged
points, as the paper takes it). FedWatch draws its own Markov availability, so its
accuracies are not the official run's to the digit: they agree within seed noise.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIDELITY = ROOT / "tests" / "fidelity" / "cafed-synthetic"
REFERENCE = ROOT / "worker" / "reproduction" / "data" / "cafed-synthetic.json"

# paper_experiments/synthetic/run.sh with `-n markov -l 0.01 -r 0.3 -b 1.0`
OFFICIAL_FLAGS = [
    "--experiment", "synthetic_clustered",
    "--objective_type", "weighted",
    "--aggregator_type", "centralized",
    "--clients_sampler", "markov",
    "--smoothness_param", "0.001",
    "--fast_n_clients_per_round", "12",
    "--adafed_full_participation",
    "--tolerance_param", "0.0",
    "--bias_const", "1.0",
    "--n_rounds", "150",
    "--local_steps", "2",
    "--local_optimizer", "sgd",
    "--local_lr", "0.01",
    "--server_optimizer", "sgd",
    "--server_lr", "0.3",
    "--train_bz", "32",
    "--test_bz", "1024",
    "--device", "cpu",
    "--log_freq", "10",
    "--verbose", "0",
]  # fmt: skip

# run by the official environment's interpreter: its global test accuracy, as logged
READ_LOGS = """
import json, sys
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
acc = EventAccumulator(sys.argv[1], size_guidance={"scalars": 0})
acc.Reload()
print(json.dumps([[e.step, e.value] for e in acc.Scalars("Test/Metric")]))
"""


@dataclass
class Run:
    wall_s: float
    final_acc: float
    time_avg_acc: float
    points: int
    engine_s: float | None = None


def build_cfg(path: Path) -> None:
    """The official `cfg.json`: keys "0".."23", each client's data folder and activity."""
    clients = json.loads((FIDELITY / "clients.json").read_text())
    cfg = {
        str(c["client"]): {
            "task_dir": str(FIDELITY / c["dir"]),
            "availability": c["availability"],
            "availability_type": c["availability_type"],
            "stability": c["stability"],
            "stability_type": c["stability_type"],
        }
        for c in sorted(clients, key=lambda c: int(c["client"]))
    }
    path.write_text(json.dumps(cfg, indent=1))


def timed(cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> float:
    with log.open("w") as out:
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{cmd[0]} exited {proc.returncode}:\n{log.read_text()[-3000:]}")
    return wall


def run_official(
    args: argparse.Namespace, cfg: Path, tmp: Path, i: int, env: dict[str, str]
) -> Run:
    logs = tmp / f"official-logs-{i}"
    cmd = [
        args.python,
        "run_experiment.py",
        "--cfg_file_path", str(cfg),
        *OFFICIAL_FLAGS,
        "--logs_dir", str(logs),
        "--history_path", str(tmp / f"official-history-{i}.json"),
        "--seed", str(args.seed),
    ]  # fmt: skip
    wall = timed(cmd, Path(args.official), env, tmp / f"official-{i}.log")
    read = subprocess.run(
        [args.python, "-c", READ_LOGS, str(logs / "global")],
        capture_output=True,
        text=True,
        check=True,
    )
    curve = [float(v) for _, v in json.loads(read.stdout)]
    return Run(wall, curve[-1], statistics.fmean(curve), len(curve))


def run_fedwatch(fedwatch: list[str], seed: int, tmp: Path, i: int, env: dict[str, str]) -> Run:
    out = tmp / f"fedwatch-{i}.json"
    cmd = [
        *fedwatch,
        "simulate", "cafed-synthetic",
        "--set", f"seed={seed}",
        "--set", "device=cpu",
        "--out", str(out),
    ]  # fmt: skip
    wall = timed(cmd, tmp, env, tmp / f"fedwatch-{i}.log")
    summary = json.loads(out.read_text())["summary"]
    return Run(
        wall,
        float(summary["final_test_acc"]),
        float(summary["time_avg_test_acc"]),
        int(summary["time_avg_points"]),
        float(summary["wall_s"]),
    )


def reference_final(seed: int) -> float | None:
    """The bundled official run's last logged accuracy for this seed, if there is one."""
    if not REFERENCE.exists():
        return None
    for run in json.loads(REFERENCE.read_text())["runs"].get("cafed", []):
        if run["seed"] == seed:
            return float(run["test_accuracy"]["values"][-1])
    return None


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} s (range {min(values):.2f}–{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official", required=True, help="checkout of arodio/CA-Fed")
    parser.add_argument("--python", required=True, help="interpreter that runs the official code")
    parser.add_argument("--runs", type=int, default=3, help="interleaved pairs")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--threads", type=int, help="OMP_NUM_THREADS for both (default: inherit)")
    parser.add_argument("--fedwatch", help="the fedwatch command (default: next to this python)")
    args = parser.parse_args()
    if not (Path(args.official) / "run_experiment.py").exists():
        sys.exit(f"no run_experiment.py under {args.official}")
    script = Path(sys.executable).parent / "fedwatch"
    if args.fedwatch:
        fedwatch = [args.fedwatch]
    elif script.exists():
        fedwatch = [str(script)]
    else:
        fedwatch = [sys.executable, "-c", "from fedwatch.command import main; main()"]

    env = dict(os.environ)
    if args.threads is not None:
        env["OMP_NUM_THREADS"] = env["MKL_NUM_THREADS"] = str(args.threads)
    threads = env.get("OMP_NUM_THREADS", "unset (torch's default)")
    print(f"seed {args.seed}, {args.runs} interleaved pairs, OMP_NUM_THREADS={threads}")

    official: list[Run] = []
    ours: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="cafed-bench-") as name:
        tmp = Path(name)
        cfg = tmp / "cfg.json"
        build_cfg(cfg)
        for i in range(args.runs):
            official.append(run_official(args, cfg, tmp, i, env))
            print(f"  run {i + 1}: official {official[-1].wall_s:6.2f} s", flush=True)
            ours.append(run_fedwatch(fedwatch, args.seed, tmp, i, env))
            print(
                f"  run {i + 1}: FedWatch {ours[-1].wall_s:6.2f} s "
                f"(engine wall_s {ours[-1].engine_s:.2f} s)",
                flush=True,
            )

    off_wall = [r.wall_s for r in official]
    our_wall = [r.wall_s for r in ours]
    engine = [r.engine_s for r in ours if r.engine_s is not None]
    print(f"official process:  {spread(off_wall)}")
    print(f"FedWatch process:  {spread(our_wall)}")
    print(f"FedWatch engine:   {spread(engine)} (summary.wall_s, rounds only)")
    pair_ratios = [o / f for o, f in zip(off_wall, our_wall, strict=True)]
    ratio = statistics.median(off_wall) / statistics.median(our_wall)
    print(
        f"ratio official / FedWatch (process): {ratio:.2f}x "
        f"(per pair {min(pair_ratios):.2f}–{max(pair_ratios):.2f})"
    )
    ref = reference_final(args.seed)
    ref_text = f"; bundled reference {ref:.4f}" if ref is not None else ""
    o, f = official[0], ours[0]
    print(
        f"official final test acc {o.final_acc:.4f}, time-average {o.time_avg_acc:.4f} "
        f"over {o.points} points{ref_text}"
    )
    print(
        f"FedWatch final test acc {f.final_acc:.4f}, time-average {f.time_avg_acc:.4f} "
        f"over {f.points} points (its own availability draws)"
    )


if __name__ == "__main__":
    main()
