"""Viewers and pollers against a running run, next to the same run unloaded.

Target (issue "Service hardening", item 1): 100 SSE viewers and 20 pollers on a running
run give 0 errors, a p95 of `/api/runs` at most 200 ms, and the run finishes identical to
an unloaded run, within 10 % of its unloaded rounds per second.

For each mode, a real service on this machine:
- `embedded`: `fedwatch serve` on a SQLite file (runs in processes of their own);
- `scale-out`: `fedwatch serve` with a broker, on Postgres and Redis, and one
  `fedwatch worker`.
The same run executes three times: unloaded, loaded, unloaded (the loaded one is
bracketed, so a drift of the machine's speed shows). While the loaded run executes,
`--viewers` clients follow its event stream from round 0 and `--pollers` clients each
fetch `/api/runs` and the run's curve every `--poll-s` seconds, until the run ends.
Counted as errors: a response other than 200, a failed request, a stream that missed
or repeated a round or ended before the run. Rounds per second are the run's rounds
over its time from start to finish (`started_at` to `finished_at`).

    python -m bench.load [--modes embedded scale-out] [--viewers 100] [--pollers 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import redis

from db.scratch import create_database, drop_database

ROUND_ID = re.compile(rb"\nid: (\d+)\n")
FINAL = ("succeeded", "failed", "cancelled")


def workload(rounds: int) -> dict[str, Any]:
    """FedAvg on the bundled digits: 100 clients, 10 a round, an MLP, 5 local steps; a
    few dozen rounds a second on one core, each streamed with its metrics."""
    return {
        "name": "load",
        "rounds": rounds,
        "device": "cpu",
        "data": {"dataset": "digits", "n_clients": 100},
        "model": {"name": "mlp", "hidden": 64},
        "algorithm": {"name": "fedavg", "participation": 10},
        "client": {"local_steps": 5, "batch_size": 32},
    }


@dataclass
class Load:
    """What the viewers and pollers saw."""

    errors: list[str] = field(default_factory=list)
    runs_ms: list[float] = field(default_factory=list)  # latencies of /api/runs
    metrics_ms: list[float] = field(default_factory=list)
    streamed: list[int] = field(default_factory=list)  # rounds each viewer received


async def view(client: httpx.AsyncClient, run_id: int, rounds: int, load: Load) -> None:
    """Follow the run's stream from round 0; check every round arrives once, in order."""
    expected, tail = 0, b""
    try:
        async with client.stream("GET", f"/api/runs/{run_id}/events") as response:
            if response.status_code != 200:
                load.errors.append(f"stream: HTTP {response.status_code}")
                return
            async for chunk in response.aiter_bytes():
                data = tail + chunk
                cut = data.rfind(b"\n\n") + 2
                for match in ROUND_ID.finditer(data, 0, cut):
                    if int(match.group(1)) != expected:
                        load.errors.append(f"stream: round {match.group(1)!r}, {expected} due")
                        return
                    expected += 1
                tail = data[cut - 1 :]  # keep the "\n" that precedes the next event
    except httpx.HTTPError as err:
        load.errors.append(f"stream: {type(err).__name__}: {err}")
    load.streamed.append(expected)
    if expected != rounds:
        load.errors.append(f"stream ended after {expected} of {rounds} rounds")


async def poll(
    client: httpx.AsyncClient, run_id: int, every_s: float, done: asyncio.Event, load: Load
) -> None:
    """A dashboard: the run list and the run's accuracy curve, every `every_s`."""
    curve = f"/api/runs/{run_id}/metrics?names=test_acc&max_points=500"
    while not done.is_set():
        for path, latencies in (("/api/runs", load.runs_ms), (curve, load.metrics_ms)):
            started = time.perf_counter()
            try:
                response = await client.get(path)
            except httpx.HTTPError as err:
                load.errors.append(f"{path}: {type(err).__name__}")
                continue
            latencies.append(1000 * (time.perf_counter() - started))
            if response.status_code != 200:
                load.errors.append(f"{path}: HTTP {response.status_code}")
        await asyncio.sleep(every_s)


async def apply_load(
    base: str, run_id: int, rounds: int, viewers: int, pollers: int, every_s: float
) -> Load:
    load = Load()
    limits = httpx.Limits(max_connections=viewers + pollers, max_keepalive_connections=pollers)
    timeout = httpx.Timeout(30, read=None)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout) as client:
        done = asyncio.Event()
        polling = [
            asyncio.create_task(poll(client, run_id, every_s, done, load)) for _ in range(pollers)
        ]
        await asyncio.gather(*(view(client, run_id, rounds, load) for _ in range(viewers)))
        done.set()
        await asyncio.gather(*polling)
    return load


@dataclass
class Execution:
    loaded: bool
    rounds_per_s: float
    rows: list[dict[str, Any]]
    load: Load | None


def stored_rows(api: httpx.Client, run_id: int) -> list[dict[str, Any]]:
    """Every stored round of the run, without its timing."""
    rows: list[dict[str, Any]] = []
    while True:
        after = rows[-1]["round"] if rows else -1
        page = api.get(f"/api/runs/{run_id}/rounds", params={"after": after, "limit": 5000})
        data = page.raise_for_status().json()["data"]
        if not data:
            return [{k: v for k, v in r.items() if k != "wall_s"} for r in rows]
        rows += data


def execute(api: httpx.Client, rounds: int, args: argparse.Namespace, loaded: bool) -> Execution:
    run = api.post("/api/runs", json={"config": workload(rounds)}).raise_for_status().json()
    load = None
    if loaded:
        base = str(api.base_url).rstrip("/")
        load = asyncio.run(
            apply_load(base, run["id"], rounds, args.viewers, args.pollers, args.poll_s)
        )
    while (run := api.get(f"/api/runs/{run['id']}").json())["status"] not in FINAL:
        time.sleep(0.2)
    if run["status"] != "succeeded":
        raise SystemExit(f"run {run['id']} {run['status']}: {run['error']}")
    span = datetime.fromisoformat(run["finished_at"]) - datetime.fromisoformat(run["started_at"])
    return Execution(loaded, rounds / span.total_seconds(), stored_rows(api, run["id"]), load)


def fedwatch() -> str:
    path = shutil.which("fedwatch", path=str(Path(sys.executable).parent))
    if path is None:
        raise SystemExit("fedwatch is not installed next to this Python")
    return path


def start(args: list[str], env: dict[str, str], log: Path, ready: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [fedwatch(), *args],
        env={**os.environ, **env},
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while ready not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"{args[0]} did not start: {log.read_text(errors='replace')}")
        time.sleep(0.2)
    return process


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def service(mode: str, args: argparse.Namespace, folder: Path) -> Iterator[httpx.Client]:
    """The service in `mode`, answering on a free port; stopped afterwards."""
    port = 18_000 + os.getpid() % 1000
    env = {"FEDWATCH_FLUSH_SECONDS": "0.5"}
    processes: list[subprocess.Popen[bytes]] = []
    database = None
    try:
        if mode == "embedded":
            env["FEDWATCH_DATABASE_URL"] = f"sqlite:///{folder / 'load.sqlite3'}"
        else:
            database = create_database(args.admin_url, "fedwatch_load")
            broker = f"{args.redis_url.rsplit('/', 1)[0]}/15"
            redis.Redis.from_url(broker).flushdb()
            env |= {"FEDWATCH_DATABASE_URL": database, "FEDWATCH_BROKER_URL": broker}
            worker = ["worker", "--queues", "cpu,gpu", "--concurrency", "1"]
            processes.append(start(worker, env, folder / "worker.log", " ready."))
        serve = ["serve", "--port", str(port)]
        processes.append(start(serve, env, folder / "serve.log", "FedWatch: open"))
        api = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
        deadline = time.monotonic() + 60
        while True:
            try:
                api.get("/healthz").raise_for_status()
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield api
    finally:
        for process in reversed(processes):
            stop(process)
        if database is not None:
            drop_database(args.admin_url, database)


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else float("nan")


def report(mode: str, executions: list[Execution]) -> list[tuple[str, str, str]]:
    loaded = next(e for e in executions if e.loaded)
    unloaded = [e for e in executions if not e.loaded]
    assert loaded.load is not None
    load = loaded.load
    baseline = statistics.mean(e.rounds_per_s for e in unloaded)
    identical = all(e.rows == loaded.rows for e in unloaded)
    unloaded_rates = " / ".join(f"{e.rounds_per_s:.1f}" for e in unloaded)
    return [
        (f"{mode}: errors", f"{len(load.errors)}", "0"),
        *((f"  {error}", "", "") for error in sorted(set(load.errors))[:5]),
        (
            "  /api/runs p50 / p95",
            f"{statistics.median(load.runs_ms):.0f} / {p95(load.runs_ms):.0f} ms",
            "p95 <= 200",
        ),
        (
            "  curve (/metrics) p50 / p95",
            f"{statistics.median(load.metrics_ms):.0f} / {p95(load.metrics_ms):.0f} ms",
            "",
        ),
        ("  requests answered", f"{len(load.runs_ms) + len(load.metrics_ms)}", ""),
        ("  rounds each viewer received (min)", f"{min(load.streamed, default=0)}", ""),
        ("  loaded run identical to unloaded", "yes" if identical else "NO", "yes"),
        (
            "  rounds/s loaded ; unloaded before / after",
            f"{loaded.rounds_per_s:.1f} ; {unloaded_rates}",
            "",
        ),
        ("  loaded / unloaded", f"{100 * (loaded.rounds_per_s / baseline - 1):+.1f} %", ">= -10 %"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", nargs="+", default=["embedded", "scale-out"])
    parser.add_argument("--viewers", type=int, default=100)
    parser.add_argument("--pollers", type=int, default=20)
    parser.add_argument("--poll-s", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=2000, help="rounds of each run")
    parser.add_argument("--admin-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    rows: list[tuple[str, str, str]] = []
    for mode in args.modes:
        with tempfile.TemporaryDirectory() as folder, service(mode, args, Path(folder)) as api:
            executions = [
                execute(api, args.rounds, args, loaded) for loaded in (False, True, False)
            ]
        rows += report(mode, executions)
        print(f"{mode}: done", file=sys.stderr, flush=True)
    print(
        f"{args.viewers} viewers and {args.pollers} pollers (every {args.poll_s} s) on a run of "
        f"{args.rounds} rounds: {workload(args.rounds)['data']}"
    )
    for figure, measured, target in [("figure", "measured", "target"), *rows]:
        print(f"{figure:<48}{measured:>30}{target:>12}")


if __name__ == "__main__":
    main()
