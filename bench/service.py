"""Service figures on Postgres, side by side in one run.

1. Recorder overhead: a FedLaAvg run with 1000 clients (the heaviest record: every
   client carries a weight; a linear model and one local step, so rounds take a few
   milliseconds and recording weighs the most), run with the database recorder and,
   next to it, with an in-memory sink (15 pairs in alternating order, medians). The
   cost of recording as a share of the run's wall time: the time the simulation's
   thread spends in the recorder, plus the CPU time of the recorder's writer thread and
   of the database server (its processes on this machine, read from /proc); then both
   walls and the median and quartiles of the pairs' wall ratios.
2. A synthetic 70 000-round run of 1000 clients (K = 100 selected per round, Bernoulli
   availability, 12 metrics) loaded with COPY; p50/p95 of the metrics query
   downsampled to 1000 points, in the database layer and through the HTTP API.
3. The staleness matrix of that run (1000 clients x 70 000 rounds -> 200 x 500) and its
   exact staleness distribution (every client x round cell).

    python bench/service.py [--admin-url postgresql+psycopg://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from api.main import create_app
from db import matrices, staleness
from db.marks import SelectionTally
from db.metric_values import downsample
from db.migrate import upgrade
from db.packing import pack_available, pack_gaps, pack_ids, pack_weights
from db.runs import new_run
from db.scratch import create_database, drop_database
from db.series import ChunkWriter
from db.session import make_engine, make_sessionmaker
from db.settings import Settings
from worker.engine import ListSink, RunConfig, run_config_for, simulate
from worker.engine.components import current
from worker.recorder import Recorder

METRICS = (
    "test_acc", "test_loss", "train_loss", "n_available", "n_selected", "staleness_mean",
    "staleness_p50", "staleness_p90", "staleness_max", "tv_bias", "tv_bias_avg", "wall_s",
)  # fmt: skip


TABLES = ("round_clients", "metric_chunks", "staleness_marks")


@contextmanager
def scratch_database(admin_url: str) -> Iterator[str]:
    url = create_database(admin_url, "fedwatch_bench")
    try:
        yield url
    finally:
        drop_database(admin_url, url)


def add_run(sessions: sessionmaker[Session], config: RunConfig) -> int:
    with sessions.begin() as session:
        run = new_run(config.model_dump(mode="json"), queue="cpu")
        session.add(run)
        session.flush()
        return run.id


def recorder_overhead(sessions: sessionmaker[Session], rounds: int, pairs: int) -> dict[str, float]:
    """`pairs` runs with the database recorder, each next to one with an in-memory sink
    (after a warm-up run; the pair's order alternates, so neither run always follows
    the other); medians, and the quartiles of the pairs' wall ratios."""
    config = run_config_for(current()).model_validate(
        {
            "rounds": rounds,
            "device": "cpu",
            "data": {"n_clients": 1000},
            "availability": {"kind": "bernoulli"},
            "algorithm": {"name": "fedlaavg", "participation": 100},
            "client": {"local_steps": 1},
            "eval": {"every": 10, "checkpoint_every": 25},
        }
    )
    settings = Settings()
    simulate(config, ListSink())  # warm-up
    figures: dict[str, list[float]] = {
        "busy": [], "writer": [], "server": [], "total": [], "recorded": [], "memory": [],
        "ratio": [],
    }  # fmt: skip

    def recorded() -> None:
        recorder = Recorder(
            sessions,
            add_run(sessions, config),
            1000,
            settings.flush_rounds,
            settings.flush_seconds,
            checkpoint_seconds=settings.checkpoint_seconds,
        )
        server = server_cpu_s()
        started = time.perf_counter()
        simulate(config, recorder)
        recorder.close()
        wall = time.perf_counter() - started
        figures["recorded"].append(wall)
        figures["busy"].append(recorder.busy_s / wall)
        figures["writer"].append(recorder.writer_cpu_s / wall)
        figures["server"].append((server_cpu_s() - server) / wall)
        figures["total"].append(figures["busy"][-1] + figures["writer"][-1] + figures["server"][-1])

    def in_memory() -> None:
        started = time.perf_counter()
        simulate(config, ListSink())
        figures["memory"].append(time.perf_counter() - started)

    for pair in range(pairs):
        for run in (recorded, in_memory) if pair % 2 == 0 else (in_memory, recorded):
            run()
        figures["ratio"].append(figures["recorded"][-1] / figures["memory"][-1])
    summary = {name: statistics.median(values) for name, values in figures.items()}
    q1, _, q3 = statistics.quantiles(figures["ratio"], n=4)
    return {**summary, "ratio_q1": q1, "ratio_q3": q3}


def server_cpu_s() -> float:
    """CPU seconds used so far by the database server's processes on this machine, from
    the scheduler's nanosecond counts (`stat`'s clock ticks are 10 ms: too coarse for
    the few tens of milliseconds a run costs the server)."""
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/comm") as f:
                name = f.read()
            with open(f"/proc/{entry.name}/schedstat") as f:
                on_cpu_ns = f.read().split()[0]
        except OSError:  # gone meanwhile
            continue
        if name.startswith("postgres"):
            total += int(on_cpu_ns)
    return total / 1e9


def copy_rows(raw: Any, table: str, columns: str, rows: Iterator[tuple[Any, ...]]) -> None:
    with raw.cursor() as cur, cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def copy_dicts(raw: Any, table: str, rows: list[dict[str, Any]]) -> None:
    if rows:
        columns = list(rows[0])
        values = (tuple(row[c] for c in columns) for row in rows)
        copy_rows(raw, table, ", ".join(f'"{c}"' for c in columns), values)


def seed_large_run(
    sessions: sessionmaker[Session], rounds: int, n: int, k: int
) -> tuple[int, float]:
    """A finished run of `rounds` rounds written with COPY; returns (run id, seconds)."""
    config = run_config_for(current()).model_validate(
        {"rounds": rounds, "data": {"n_clients": n}, "algorithm": {"participation": k}}
    )
    run_id = add_run(sessions, config)
    rng = np.random.default_rng(0)
    started = time.perf_counter()
    values = rng.random((rounds, len(METRICS)))
    chunks = ChunkWriter(run_id)
    for t in range(rounds):  # round after round, as the recorder writes them
        chunks.add(t, dict(zip(METRICS, values[t].tolist(), strict=True)))

    marks: list[dict[str, Any]] = []

    def client_rows() -> Iterator[tuple[Any, ...]]:
        tally = SelectionTally.empty(run_id, n)  # gaps and marks, as the recorder keeps them
        for t in range(rounds):
            available = np.flatnonzero(rng.random(n) < 0.5)
            chosen = np.sort(rng.choice(available, size=min(k, len(available)), replace=False))
            gaps, due = tally.advance(t, chosen)
            marks.extend(due)
            ids = chosen.tolist()
            yield (
                run_id,
                t,
                pack_available(available.tolist(), n),
                pack_ids(ids, n),
                pack_gaps(gaps),
                pack_weights(chosen, np.full(len(ids), 1.0 / len(ids)), n),
                None,
            )

    engine = sessions.kw["bind"]
    raw = engine.raw_connection()
    try:
        copy_rows(
            raw.driver_connection,
            "round_clients",
            "run_id, round, available, selected, gaps, weights, client_acc",
            client_rows(),
        )
        copy_dicts(raw.driver_connection, "metric_chunks", chunks.take())
        copy_dicts(raw.driver_connection, "staleness_marks", marks)
        raw.commit()
    finally:
        raw.close()
    with sessions.begin() as session:
        session.execute(
            text(
                "UPDATE runs SET status = 'succeeded', rounds_done = :r, metric_names = :names "
                "WHERE id = :id"
            ),
            {"r": rounds, "id": run_id, "names": json_list(METRICS)},
        )
    with engine.connect() as conn:  # what autovacuum does to a finished run's pages
        conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("VACUUM ANALYZE"))
    return run_id, time.perf_counter() - started


def json_list(items: tuple[str, ...]) -> str:
    return "[" + ",".join(f'"{i}"' for i in items) + "]"


def timings(fn: Callable[[], object], repeats: int) -> tuple[float, float]:
    """p50 and p95 in milliseconds after one warm-up call."""
    fn()
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        samples.append(1000 * (time.perf_counter() - started))
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(0.95 * len(samples)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--admin-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    parser.add_argument("--rounds", type=int, default=70_000)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--selected", type=int, nargs="+", default=[100, 10])
    parser.add_argument("--sim-rounds", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=15)
    parser.add_argument("--repeats", type=int, default=40)
    args = parser.parse_args()
    n, few = args.clients, max(5, args.repeats // 4)

    with scratch_database(args.admin_url) as url:
        upgrade(url)
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        overhead = recorder_overhead(sessions, args.sim_rounds, args.pairs)
        large = {k: seed_large_run(sessions, args.rounds, n, k) for k in args.selected}
        run_id = large[args.selected[0]][0]

        def metrics_db() -> object:
            with sessions() as s:
                return downsample(s, run_id, ["test_acc"], 0, args.rounds - 1, 1000)

        def staleness_db(run: int) -> Callable[[], object]:
            def query() -> object:
                with sessions() as s:
                    return matrices.staleness(s, run, n, 200, 500)

            return query

        def distribution_db(run: int) -> Callable[[], object]:
            def query() -> object:
                with sessions() as s:
                    return staleness.distribution(s, run, n)

            return query

        with TestClient(create_app(Settings(database_url=url, broker_url=None))) as client:

            def metrics_http() -> object:
                path = f"/api/runs/{run_id}/metrics?names=test_acc&max_points=1000"
                return client.get(path).raise_for_status()

            def staleness_http() -> object:
                path = f"/api/runs/{run_id}/staleness?max_clients=200&max_rounds=500"
                return client.get(path).raise_for_status()

            m_db = timings(metrics_db, args.repeats)
            m_http = timings(metrics_http, args.repeats)

            def distribution_http() -> object:
                path = f"/api/runs/{run_id}/staleness/distribution"
                return client.get(path).raise_for_status()

            stale = {k: timings(staleness_db(r), few) for k, (r, _) in large.items()}
            s_http = timings(staleness_http, few)
            spread = {k: timings(distribution_db(r), few) for k, (r, _) in large.items()}
            d_http = timings(distribution_http, few)
        size = table_sizes(sessions)
        engine.dispose()

    rows = [
        (
            f"recording / run wall ({n} clients, {args.sim_rounds} rounds)",
            f"{100 * overhead['total']:.2f} %",
            "<= 5 %",
        ),
        ("  simulation thread in the recorder", f"{100 * overhead['busy']:.2f} %", ""),
        ("  recorder's writer thread, CPU", f"{100 * overhead['writer']:.2f} %", ""),
        ("  database server, CPU", f"{100 * overhead['server']:.2f} %", ""),
        (
            "  run wall: recorder / in-memory sink, medians",
            f"{overhead['recorded']:.2f} / {overhead['memory']:.2f} s "
            f"(pairs: {100 * (overhead['ratio'] - 1):+.1f} %, quartiles "
            f"{100 * (overhead['ratio_q1'] - 1):+.1f} / {100 * (overhead['ratio_q3'] - 1):+.1f} %)",
            "",
        ),
        *(
            (f"load {args.rounds} rounds x {n} clients, K = {k}, COPY", f"{t:.1f} s", "")
            for k, (_, t) in large.items()
        ),
        (f"  on disk (all runs): {', '.join(TABLES)}", size, ""),
        (
            "metrics query, 1 series -> 1000 points, p50 / p95",
            f"{m_db[0]:.1f} / {m_db[1]:.1f} ms",
            "p95 <= 50",
        ),
        ("  same through HTTP, p50 / p95", f"{m_http[0]:.1f} / {m_http[1]:.1f} ms", ""),
        *(
            (
                f"staleness {n} x {args.rounds} (K = {k}) -> 200 x 500, p50 / p95",
                f"{p50:.0f} / {p95:.0f} ms",
                "<= 300",
            )
            for k, (p50, p95) in stale.items()
        ),
        (
            f"  K = {args.selected[0]} through HTTP, p50 / p95",
            f"{s_http[0]:.0f} / {s_http[1]:.0f} ms",
            "",
        ),
        *(
            (
                f"staleness distribution, exact, {n} x {args.rounds} (K = {k}), p50 / p95",
                f"{p50:.0f} / {p95:.0f} ms",
                "<= 300",
            )
            for k, (p50, p95) in spread.items()
        ),
        (
            f"  K = {args.selected[0]} through HTTP, p50 / p95",
            f"{d_http[0]:.0f} / {d_http[1]:.0f} ms",
            "",
        ),
    ]
    out = io.StringIO()
    for figure, measured, target in [("figure", "measured", "target"), *rows]:
        out.write(f"{figure:<60}{measured:>22}{target:>12}\n")
    print(out.getvalue(), end="")


def table_sizes(sessions: sessionmaker[Session]) -> str:
    with sessions() as s:
        sizes = [s.scalar(text(f"SELECT pg_total_relation_size('{t}')")) or 0 for t in TABLES]
    return " + ".join(f"{size / 2**20:.0f}" for size in sizes) + " MiB"


if __name__ == "__main__":
    main()
