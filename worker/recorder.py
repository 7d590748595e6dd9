"""The engine's sink in the service: buffers rounds and writes them in batches."""

from __future__ import annotations

import math
import threading
import time
from typing import Any

import numpy as np
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from db.matrices import selection_tally
from db.models import MetricChunk, RoundClients, RoundMetric, Run, StalenessMark, utcnow
from db.packing import pack_acc, pack_available, pack_gaps, pack_ids, pack_weights
from db.runs import save_checkpoint
from db.series import CHUNK, ChunkWriter
from db.upsert import insert_ignore, upsert_many
from worker.engine import RoundRecord


def metric_rows(run_id: int, record: RoundRecord) -> list[dict[str, Any]]:
    scalars = {**record.metrics, "wall_s": record.wall_s}
    return [
        {"run_id": run_id, "name": name, "round": record.round, "value": finite(value)}
        for name, value in scalars.items()
    ]


def finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def client_row(
    run_id: int, n_clients: int, record: RoundRecord, gaps: np.ndarray
) -> dict[str, Any]:
    """The round's packed row, with the selection gaps given by the run's tally."""
    return {
        "run_id": run_id,
        "round": record.round,
        "available": pack_available(record.available, n_clients),
        "selected": pack_ids(record.selected, n_clients),
        "gaps": pack_gaps(gaps),
        "weights": pack_weights(record.weights, n_clients),
        "client_acc": pack_acc(record.client_acc),
    }


class Recorder:
    """Writes rounds every `flush_rounds` rounds or `flush_seconds` seconds, whichever
    comes first, together with the run's progress and heartbeat; a checkpoint is written
    after the rounds before it, so a resumed run never misses a round.

    `should_stop` answers from the cancel flag read at the last flush (or `stop`, set
    when the process shuts down), so cancelling costs no query per round.

    Each round's selection gaps, the staleness marks and the metric chunks continue
    the history already in the database, read when the recorder starts: a resumed run
    replays rounds whose rows are stored, and those stored rows win (their client rows,
    marks and chunks are not rebuilt), so later rounds always follow what is on record.
    """

    def __init__(
        self,
        sessions: sessionmaker[Session],
        run_id: int,
        n_clients: int,
        flush_rounds: int,
        flush_seconds: float,
        start_round: int = 0,
        stop: threading.Event | None = None,
    ) -> None:
        self.sessions = sessions
        self.run_id = run_id
        self.n_clients = n_clients
        self.flush_rounds = flush_rounds
        self.flush_seconds = flush_seconds
        self.stop = stop or threading.Event()
        self.metrics: list[dict[str, Any]] = []
        self.clients: list[dict[str, Any]] = []
        self.marks: list[dict[str, Any]] = []
        self.last_round = start_round - 1
        self.last_flush = time.monotonic()
        self.cancel_requested = False
        self.names: set[str] = set()
        self.new_names = False
        self.busy_s = 0.0
        with sessions() as session:
            self.tally = selection_tally(session, run_id, n_clients)
            c = MetricChunk
            open_chunks = session.execute(
                select(c.name, c.chunk, c.present, c.values).where(
                    c.run_id == run_id, c.chunk == max(self.tally.next_round - 1, 0) // CHUNK
                )
            ).all()
            self.chunks = ChunkWriter(run_id, open_chunks)
        self.stored_through = self.tally.next_round - 1

    def on_round(self, record: RoundRecord) -> None:
        started = time.perf_counter()
        rows = metric_rows(self.run_id, record)
        if not self.names.issuperset(row["name"] for row in rows):
            self.names.update(row["name"] for row in rows)
            self.new_names = True
        self.metrics.extend(rows)
        if record.round > self.stored_through:
            ids = np.asarray(record.selected, dtype=np.int64)
            gaps, marks = self.tally.advance(record.round, ids)
            self.clients.append(client_row(self.run_id, self.n_clients, record, gaps))
            self.marks.extend(marks)
            self.chunks.add(record.round, {r["name"]: r["value"] for r in rows})
        self.last_round = record.round
        due = time.monotonic() - self.last_flush >= self.flush_seconds
        if due or len(self.clients) >= self.flush_rounds:
            self._flush(None)
        self.busy_s += time.perf_counter() - started

    def on_checkpoint(self, state: dict[str, Any]) -> None:
        started = time.perf_counter()
        self._flush(state)
        self.busy_s += time.perf_counter() - started

    def flush(self) -> None:
        started = time.perf_counter()
        self._flush(None)
        self.busy_s += time.perf_counter() - started

    def should_stop(self) -> bool:
        return self.cancel_requested or self.stop.is_set()

    def _flush(self, checkpoint: dict[str, Any] | None) -> None:
        with self.sessions.begin() as session:
            insert_ignore(session, RoundMetric.__table__, self.metrics)  # type: ignore[arg-type]
            insert_ignore(session, RoundClients.__table__, self.clients)  # type: ignore[arg-type]
            insert_ignore(session, StalenessMark.__table__, self.marks)  # type: ignore[arg-type]
            chunk_rows = self.chunks.take()
            keys = ["run_id", "name", "chunk"]
            upsert_many(session, MetricChunk.__table__, chunk_rows, keys)  # type: ignore[arg-type]
            if checkpoint is not None:
                save_checkpoint(session, self.run_id, int(checkpoint["round"]), checkpoint)
            progress: dict[str, Any] = {
                "rounds_done": self.last_round + 1,
                "heartbeat_at": utcnow(),
            }
            if self.new_names:
                run = session.get(Run, self.run_id)
                known = set(run.metric_names) if run else set()
                progress["metric_names"] = sorted(self.names | known)
            stmt = update(Run).where(Run.id == self.run_id).values(**progress)
            flag = session.scalar(stmt.returning(Run.cancel_requested))
            self.cancel_requested = bool(flag)
        self.new_names = False
        self.metrics, self.clients, self.marks = [], [], []
        self.last_flush = time.monotonic()
