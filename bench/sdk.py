"""SDK and ingest figures against a real `fedwatch serve` (embedded, SQLite, or the
database of `--database-url`).

1. Logging overhead of `Run.log_round` per round, next to a no-op of the same
   signature, for rounds of 100 clients (60 available, 10 selected with weights, three
   metrics; numpy arrays in), with the background sender running against the server:
   median over repeats of (log loop − no-op loop) / rounds, in µs.
2. Ingest throughput of the server: rounds of 1000 clients (≈ 600 available, 100
   selected with weights, three metrics) POSTed in batches of `--batch` rounds, one
   client at a time, in rounds/s.
3. Rounds lost by a training process killed with SIGKILL (the SDK's default flush
   interval, 1 s; a round every 2 ms; server unreachable, so all it keeps is its spool):
   after `fedwatch sync`, the rounds missing and how long before the kill the oldest
   of them was logged.

    python bench/sdk.py [--database-url URL] [--rounds 4000] [--batch 100] [--kills 5]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: bench, tests

from fedwatch.client import FedWatch
from tests.service.servers import free_port, serve


def no_op(
    t: int,
    metrics: dict[str, float],
    available: Any = None,
    selected: Any = None,
    weights: Any = None,
) -> None:
    return None


def logging_overhead(url: str, spool: Path, rounds: int, repeats: int) -> float:
    rng = np.random.default_rng(0)
    avail = [np.sort(rng.choice(100, 60, replace=False)) for _ in range(rounds)]
    chosen = [a[:10] for a in avail]
    weights = np.full(10, 0.1)
    fw = FedWatch(url, spool_dir=spool)
    costs = []
    for repeat in range(repeats):
        run = fw.start_run(f"overhead-{repeat}", {}, n_clients=100)
        loops = []
        for log in (no_op, run.log_round):
            started = time.perf_counter()
            for t in range(rounds):
                metrics = {"test_acc": 0.5, "test_loss": 0.7, "train_loss": 0.6}
                log(t, metrics, available=avail[t], selected=chosen[t], weights=weights)
            loops.append(time.perf_counter() - started)
        run.finish()
        costs.append((loops[1] - loops[0]) / rounds * 1e6)
    return statistics.median(costs)


def ingest_throughput(url: str, rounds: int, batch: int) -> float:
    rng = np.random.default_rng(1)
    with httpx.Client(base_url=url, timeout=120) as client:
        declaration = {"source": "external", "name": "ingest", "n_clients": 1000}
        run_id = client.post("/api/runs", json=declaration).json()["id"]
        bodies = []
        for start in range(0, rounds, batch):
            records = []
            for t in range(start, min(start + batch, rounds)):
                available = np.flatnonzero(rng.random(1000) < 0.6)
                selected = np.sort(rng.choice(available, 100, replace=False))
                records.append(
                    {
                        "round": t,
                        "metrics": {"test_acc": 0.5, "test_loss": 0.7, "train_loss": 0.6},
                        "available": available.tolist(),
                        "selected": selected.tolist(),
                        "weights": {str(i): 0.01 for i in selected.tolist()},
                    }
                )
            bodies.append({"rounds": records})
        started = time.perf_counter()
        for body in bodies:
            answer = client.post(f"/api/runs/{run_id}/rounds", json=body)
            answer.raise_for_status()
        return rounds / (time.perf_counter() - started)


def killed_loss(url: str, tmp: Path, kill: int) -> tuple[int, float]:
    spool = tmp / f"killed-{kill}"
    nowhere = f"http://127.0.0.1:{free_port()}"
    command = [sys.executable, "-m", "tests.client.training_child", nowhere, str(spool)]
    child = subprocess.Popen([*command, "1.0", "0.002"], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    logged: dict[int, float] = {}
    until = time.monotonic() + 3 + random.random()  # a random phase of the flush
    for line in child.stdout:
        t, at = line.split()
        logged[int(t)] = float(at)
        if float(at) > until:
            break
    killed_at = time.monotonic()
    child.send_signal(signal.SIGKILL)
    for line in child.stdout:
        t, at = line.split()
        logged[int(t)] = float(at)
    child.wait()
    subprocess.run(
        [str(Path(sys.executable).parent / "fedwatch"), "sync", str(spool), "--url", url],
        check=True,
        capture_output=True,
    )
    runs = httpx.get(f"{url}/api/runs", params={"q": "killed", "limit": 1}).json()["data"]
    lost = len(logged) - runs[0]["rounds_done"]
    oldest = min((logged[t] for t in logged if t >= runs[0]["rounds_done"]), default=killed_at)
    return lost, killed_at - oldest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="default: a SQLite file in a scratch directory")
    parser.add_argument("--rounds", type=int, default=4000, help="rounds ingested (part 2)")
    parser.add_argument("--batch", type=int, default=100, help="rounds per POST (part 2)")
    parser.add_argument("--kills", type=int, default=5, help="killed processes (part 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        database = args.database_url or f"sqlite:///{tmp / 'bench.sqlite3'}"
        port = free_port()
        server = serve(database, port, tmp / "serve.log", FEDWATCH_API_TOKEN="")
        url = f"http://127.0.0.1:{port}"
        try:
            overhead = logging_overhead(url, tmp / "spool", 20_000, 5)
            print(f"log_round overhead: {overhead:.1f} µs a round (median of 5, vs a no-op)")
            rate = ingest_throughput(url, args.rounds, args.batch)
            print(f"ingest: {rate:.0f} rounds/s of 1000-client records, {args.batch} a batch")
            losses = [killed_loss(url, tmp, k) for k in range(args.kills)]
            print(
                "killed (flush 1 s, a round every 2 ms): lost "
                + ", ".join(f"{n} rounds ({age:.2f} s)" for n, age in losses)
            )
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait()


if __name__ == "__main__":
    main()
