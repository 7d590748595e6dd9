"""Viewers and pollers against a running run, next to the same run unloaded.

Target (issue "Service hardening", item 1): 100 SSE viewers and 20 pollers on a running
run give 0 errors, a p95 of `/api/runs` at most 200 ms, and the run finishes identical to
an unloaded run, within 10 % of its unloaded rounds per second.

For each mode, a real service on this machine:
- `embedded`: `fedwatch serve` on a SQLite file (runs in processes of their own);
- `scale-out`: `fedwatch serve` with a broker, on Postgres and Redis, and one
  `fedwatch worker`.
The same run executes in `--pairs` pairs, unloaded and loaded, the order alternating
from pair to pair (so a drift of the machine's speed shows); the ratio of rounds per
second is taken within each pair, and the median of the pairs reported with their
range. While a loaded run executes, `--viewers` clients follow its event stream from
round 0 and `--pollers` clients each fetch `/api/runs` and the run's curve every
`--poll-s` seconds (the dashboard's period), until the run ends. Viewers and pollers
run in processes of their own (a real service's clients are on other machines), the
viewers at a lower priority (`--client-nice`), so parsing a hundred streams does not
take the run's cores first, and the pollers, whose latencies are timed, at the
service's (`--poller-nice`). The run gets `--run-threads` torch threads (one by default: the API,
the database and the clients share this machine's cores with it, as they do with an
embedded server's runs).
`--run-cores` measures the embedded server's settings (`FEDWATCH_RUN_CORES`): `apart`,
its default with more than one core (the server on its first core, its runs on the
others), and `shared` (everything on every core), each with a service of its own, one
after the other. `--pin` puts the viewers and pollers on the first core too (the API's).
`--workload` chooses the run: `digits` (FedAvg on the bundled digits, a few dozen rounds a
second) or `example1` (FedLaAvg's Example 1: hundreds of rounds a second, the most
events a stream carries). `--busy` adds a competitor, a process spinning on a core for
the whole measurement (a busy machine); without it the machine should be quiet.
Counted as errors: a response other than 200, a failed request, a stream that missed
or repeated a round or ended before the run. Rounds per second are the run's rounds
over its time from start to finish (`started_at` to `finished_at`).

    python -m bench.load [--modes embedded scale-out] [--viewers 100] [--pollers 20]
        [--run-cores apart shared] [--workload digits example1] [--busy] [--pin]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: bench, tests

from bench.service import server_cpu_s
from db.scratch import create_database, drop_database
from worker.cores import split
from worker.presets import get_preset

ROUND_ID = re.compile(rb"\nid: (\d+)\n")
API_CORES = (split(os.sched_getaffinity(0)) or (frozenset(os.sched_getaffinity(0)),))[0]


def settle(nice: int, pin: bool) -> None:
    """A client process's niceness, and with `--pin` its core (the API's)."""
    os.nice(nice)
    if pin:
        os.sched_setaffinity(0, API_CORES)


def workload(name: str, rounds: int) -> dict[str, Any]:
    """The run: `digits`, FedAvg on the bundled digits (100 clients, 10 a round, an MLP, 5
    local steps; a few dozen rounds a second on one core), or `example1`, FedLaAvg's
    Example 1 (two clients, a scalar model: hundreds of rounds a second), each round
    streamed with its metrics."""
    if name == "example1":
        return get_preset("example1").run_config([f"rounds={rounds}"]).model_dump(mode="json")
    return {
        "name": "load",
        "rounds": rounds,
        "device": "cpu",
        "data": {"dataset": "digits", "n_clients": 100},
        "model": {"name": "mlp", "mlp": {"hidden": 64}},
        "algorithm": {"name": "fedavg", "participation": 10},
        "client": {"local_steps": 5, "batch_size": 32},
    }


@contextmanager
def competitor(busy: bool) -> Iterator[None]:
    """With `busy`, a process spinning on whatever core the scheduler gives it."""
    if not busy:
        yield
        return
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


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


async def until_final(client: httpx.AsyncClient, run_id: int, every_s: float) -> None:
    while (await client.get(f"/api/runs/{run_id}")).json()["active"]:
        await asyncio.sleep(every_s)


def client(base: str, connections: int) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx.AsyncClient(base_url=base, limits=limits, timeout=httpx.Timeout(30, read=None))


async def apply_views(base: str, run_id: int, rounds: int, viewers: int) -> Load:
    load = Load()
    async with client(base, viewers) as viewing:
        await asyncio.gather(*(view(viewing, run_id, rounds, load) for _ in range(viewers)))
    return load


async def apply_polls(base: str, run_id: int, pollers: int, every_s: float) -> Load:
    load = Load()
    async with client(base, pollers + 1) as polling:
        done = asyncio.Event()
        tasks = [
            asyncio.create_task(poll(polling, run_id, every_s, done, load)) for _ in range(pollers)
        ]
        await until_final(polling, run_id, every_s)
        done.set()
        await asyncio.gather(*tasks)
    return load


def views(base: str, run_id: int, rounds: int, viewers: int) -> Load:
    return asyncio.run(apply_views(base, run_id, rounds, viewers))


def polls(base: str, run_id: int, pollers: int, every_s: float) -> Load:
    return asyncio.run(apply_polls(base, run_id, pollers, every_s))


def load_elsewhere(
    args: argparse.Namespace, base: str, run_id: int, rounds: int
) -> tuple[Load, float]:
    """The viewers and the pollers, each in a process of its own (the clients of a real
    service run on other machines): the viewers, which parse every round of 100 streams,
    at niceness `--client-nice` so they do not take the run's cores first; the pollers,
    whose latencies are measured, at `--poller-nice`, so their own wait for a core does
    not count as the server's. Returns what they saw and the CPU seconds they used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    with (
        ProcessPoolExecutor(
            1, initializer=settle, initargs=(args.client_nice, args.pin)
        ) as viewing,
        ProcessPoolExecutor(
            1, initializer=settle, initargs=(args.poller_nice, args.pin)
        ) as polling,
    ):
        seen = viewing.submit(views, base, run_id, rounds, args.viewers)
        polled = polling.submit(polls, base, run_id, args.pollers, args.poll_s)
        watched, timed = seen.result(), polled.result()
    load = Load(
        errors=watched.errors + timed.errors,
        runs_ms=timed.runs_ms,
        metrics_ms=timed.metrics_ms,
        streamed=watched.streamed,
    )
    return load, resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


@dataclass
class Execution:
    loaded: bool
    rounds_per_s: float
    rows: list[dict[str, Any]]
    load: Load | None
    api_cpu: float = 0.0  # cores the API process used while the run executed
    load_cpu: float = 0.0  # cores the viewers and pollers (this process) used
    database_cpu: float = 0.0  # cores the Postgres server's processes used


def cpu_s(pid: int) -> float:
    """CPU seconds a process has used (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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


def execute(
    api: httpx.Client, server: int, rounds: int, args: argparse.Namespace, loaded: bool
) -> Execution:
    """One run of `rounds` rounds, loaded or not; `server` is the API's process id."""
    config = workload(args.workload, rounds)
    run = api.post("/api/runs", json={"config": config}).raise_for_status().json()
    load = None
    started, api_cpu, load_cpu, database_cpu = time.monotonic(), cpu_s(server), 0.0, server_cpu_s()
    if loaded:
        base = str(api.base_url).rstrip("/")
        load, load_cpu = load_elsewhere(args, base, run["id"], rounds)
    while (run := api.get(f"/api/runs/{run['id']}").json())["active"]:
        time.sleep(0.2)
    elapsed = time.monotonic() - started
    api_cpu, database_cpu = cpu_s(server) - api_cpu, server_cpu_s() - database_cpu
    if run["status"] != "succeeded":
        raise SystemExit(f"run {run['id']} {run['status']}: {run['error']}")
    span = datetime.fromisoformat(run["finished_at"]) - datetime.fromisoformat(run["started_at"])
    rows = stored_rows(api, run["id"])
    cores = (api_cpu / elapsed, load_cpu / elapsed, database_cpu / elapsed)
    return Execution(loaded, rounds / span.total_seconds(), rows, load, *cores)


def fedwatch() -> str:
    path = shutil.which("fedwatch", path=str(Path(sys.executable).parent))
    if path is None:
        raise SystemExit("fedwatch is not installed next to this Python")
    return path


def start(args: list[str], env: dict[str, str], log: Path, ready: str) -> subprocess.Popen[bytes]:
    """`fedwatch ARGS`, once its log shows `ready`."""
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
def service(
    mode: str, cores: str, args: argparse.Namespace, folder: Path
) -> Iterator[tuple[httpx.Client, int]]:
    """The service in `mode`, its runs' cores `cores` (`FEDWATCH_RUN_CORES`), answering
    on a free port, and the API's process id; stopped afterwards."""
    port = 18_000 + os.getpid() % 1000
    env = {
        "FEDWATCH_FLUSH_SECONDS": "0.5",
        "FEDWATCH_RUN_THREADS": str(args.run_threads),
        "FEDWATCH_RUN_CORES": cores,
    }
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
        server = start(serve, env, folder / "serve.log", "FedWatch: open")
        processes.append(server)
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
        yield api, server.pid
    finally:
        for process in reversed(processes):
            stop(process)
        if database is not None:
            drop_database(args.admin_url, database)


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else float("nan")


def latencies(values: list[float]) -> str:
    """p50 / p95 of request times; a dash without requests (`--pollers 0`)."""
    return f"{statistics.median(values):.0f} / {p95(values):.0f} ms" if values else "–"


def report(mode: str, pairs: list[tuple[Execution, Execution]]) -> list[tuple[str, str, str]]:
    """Figures of (unloaded, loaded) pairs."""
    loads = [loaded.load for _, loaded in pairs if loaded.load is not None]
    errors = [e for load in loads for e in load.errors]
    runs_ms = [ms for load in loads for ms in load.runs_ms]
    metrics_ms = [ms for load in loads for ms in load.metrics_ms]
    reference = pairs[0][0].rows
    identical = all(e.rows == reference for pair in pairs for e in pair)
    ratios = sorted(loaded.rounds_per_s / plain.rounds_per_s - 1 for plain, loaded in pairs)
    rates = "; ".join(f"{p.rounds_per_s:.0f} / {q.rounds_per_s:.0f}" for p, q in pairs)
    return [
        (f"{mode}: errors", f"{len(errors)}", "0"),
        *((f"  {error}", "", "") for error in sorted(set(errors))[:5]),
        (
            "  /api/runs p50 / p95",
            latencies(runs_ms),
            "p95 <= 200",
        ),
        (
            "  curve (/metrics) p50 / p95",
            latencies(metrics_ms),
            "",
        ),
        ("  requests answered", f"{len(runs_ms) + len(metrics_ms)}", ""),
        (
            "  rounds each viewer received (min)",
            f"{min((n for load in loads for n in load.streamed), default='–')}",
            "",
        ),
        ("  every run identical", "yes" if identical else "NO", "yes"),
        ("  rounds/s unloaded / loaded, each pair", rates, ""),
        (
            "  loaded / unloaded: median of pairs (range)",
            f"{100 * statistics.median(ratios):+.1f} % ({100 * ratios[0]:+.1f}, "
            f"{100 * ratios[-1]:+.1f})",
            ">= -10 %",
        ),
        (
            "  cores used loaded: API ; viewers and pollers",
            f"{statistics.mean(q.api_cpu for _, q in pairs):.2f} ; "
            f"{statistics.mean(q.load_cpu for _, q in pairs):.2f}",
            "",
        ),
        ("  cores used unloaded: API", f"{statistics.mean(p.api_cpu for p, _ in pairs):.2f}", ""),
        (
            "  cores used by Postgres, unloaded / loaded",
            f"{statistics.mean(p.database_cpu for p, _ in pairs):.2f} / "
            f"{statistics.mean(q.database_cpu for _, q in pairs):.2f}",
            "",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", nargs="+", default=["embedded", "scale-out"])
    parser.add_argument("--viewers", type=int, default=100)
    parser.add_argument("--pollers", type=int, default=20)
    parser.add_argument(
        "--poll-s", type=float, default=2.0, help="each poller's period (the dashboard's is 2 s)"
    )
    parser.add_argument(
        "--client-nice",
        type=int,
        default=10,
        help="niceness of the viewers' process (0: as the service's)",
    )
    parser.add_argument(
        "--poller-nice", type=int, default=0, help="niceness of the pollers' process"
    )
    parser.add_argument("--rounds", type=int, default=12_000, help="rounds of each run")
    parser.add_argument("--pairs", type=int, default=3, help="unloaded/loaded pairs per mode")
    parser.add_argument(
        "--run-threads",
        type=int,
        default=1,
        help="torch threads of the run (FEDWATCH_RUN_THREADS): the service shares this "
        "machine's cores with the run",
    )
    parser.add_argument(
        "--run-cores",
        nargs="+",
        default=["apart"],
        choices=["apart", "shared"],
        help="the embedded server's FEDWATCH_RUN_CORES settings to measure, one after the other",
    )
    parser.add_argument("--workload", default="digits", choices=["digits", "example1"])
    parser.add_argument(
        "--busy", action="store_true", help="a process spinning on a core throughout"
    )
    parser.add_argument(
        "--pin", action="store_true", help="the viewers and pollers on the API's core"
    )
    parser.add_argument("--admin-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    rows: list[tuple[str, str, str]] = []
    cases = [(m, c) for m in args.modes for c in (args.run_cores if m == "embedded" else [""])]
    with competitor(args.busy):
        for mode, cores in cases:
            with (
                tempfile.TemporaryDirectory() as folder,
                service(mode, cores or "apart", args, Path(folder)) as (api, server),
            ):
                pairs = []
                for i in range(args.pairs):  # each pair's order alternates
                    first = execute(api, server, args.rounds, args, loaded=i % 2 == 1)
                    second = execute(api, server, args.rounds, args, loaded=i % 2 == 0)
                    pairs.append((second, first) if first.loaded else (first, second))
            name = f"{mode}, runs {cores}" if cores else mode
            rows += report(name, pairs)
            print(f"{name}: done", file=sys.stderr, flush=True)
    print(
        f"{args.viewers} viewers and {args.pollers} pollers (every {args.poll_s} s) on a run of "
        f"{args.rounds} rounds of {args.workload}; "
        + ("busy: a process spinning on a core" if args.busy else "no competitor")
    )
    for figure, measured, target in [("figure", "measured", "target"), *rows]:
        print(f"{figure:<48}{measured:>30}{target:>12}")


if __name__ == "__main__":
    main()
