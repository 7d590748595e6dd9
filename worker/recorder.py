"""The engine's sink in the service: buffers rounds and hands them in batches to a
writer thread, so the simulation does not wait for the database."""

from __future__ import annotations

import math
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from db.marks import SelectionTally
from db.matrices import selection_tally
from db.models import MetricChunk, RoundClients, Run, StalenessMark, utcnow
from db.packing import (
    pack_acc,
    pack_available_many,
    pack_gaps_many,
    pack_ids_many,
    pack_weights,
)
from db.retry import in_transaction
from db.runs import pack_checkpoint, save_checkpoint
from db.series import CHUNK, ChunkWriter
from db.upsert import insert_ignore, upsert_many
from worker.engine import ClientWeights, RoundRecord


class RunLost(RuntimeError):
    """The run was deleted, or another execution claimed it (this one went silent past
    the lease)."""


@dataclass
class Batch:
    """What one database transaction writes: the rounds since the last, the run's
    progress, and the checkpoint that goes with them."""

    rounds: list[RoundRecord]
    rounds_done: int
    checkpoint: dict[str, Any] | None


@dataclass
class Rows:
    """A batch packed for its transaction: written again whole if that is retried."""

    rounds_done: int
    names: set[str] | None
    clients: list[dict[str, Any]]
    marks: list[dict[str, Any]]
    chunks: list[dict[str, Any]]
    checkpoint: tuple[int, bytes] | None


class Recorder:
    """Collects the rounds (the engine builds a fresh record each round, so records are
    kept as they are) and, every `flush_rounds` rounds or `flush_seconds` seconds,
    whichever comes first, hands them to its writer thread, which writes them in one
    transaction with the run's progress and heartbeat (handed over in batches, the
    writer wakes twice a second rather than every round). All the work a round needs
    beyond keeping its record (selection gaps, staleness marks, metric chunks, packing)
    is the writer's, a batch at a time: the simulation's thread spends a few
    microseconds a round here.

    A checkpoint (a snapshot the engine never changes afterwards) travels with the next
    batch and is packed by the writer, so it is written with the rounds before it and a
    resumed run never misses a round; a newer checkpoint replaces one still waiting.
    Checkpoints offered less than `checkpoint_seconds` after the last one kept are
    dropped: a fast run with a large memory (FedLaAvg's, N × d) would otherwise write it
    twice a second, for a crash that costs a lease's wait anyway. At most two batches
    wait for the writer: a database slower than the run holds the run back instead of
    filling memory.

    `should_stop` answers from the cancel flag read at the last write, `cancel` (set when
    the run's supervisor passes on a cancel) or `stop` (set when the process shuts down),
    so cancelling costs no query per round. The checkpoint the engine offers when it
    stops is always kept, so the run resumes where it stopped. An error of the writer is
    raised in the simulation's thread at the next hand-over or at `close`.

    With `claim` (the token of this execution) each write first updates the run's
    progress only if the run still carries that token; if another execution took the
    run over (or the run was deleted), nothing of the batch is written and `RunLost` is
    raised. That update comes first so it locks the run's row: a takeover waits for a
    write in progress, and the new execution starts from everything it wrote.

    The writer's selection gaps, staleness marks and metric chunks continue
    the history already in the database, read when the recorder starts: a resumed run
    replays rounds whose rows are stored, and those stored rows win (their client rows,
    marks and chunks are not rebuilt), so later rounds always follow what is on record.

    Transient database errors (a restart, a dropped connection, a locked SQLite file)
    are retried for up to `retry_s` seconds: the start-up reads, and each batch's whole
    transaction, while the run goes on until two batches wait. The batch is packed once;
    its rows are keyed on (run, round) and its updates are compare-and-set, so writing
    it again after a commit whose acknowledgement was lost changes nothing.

    `busy_s` is the time the simulation's thread spent in the recorder; `writer_cpu_s`
    the CPU time of the writer thread.
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
        cancel: threading.Event | None = None,
        claim: str | None = None,
        checkpoint_seconds: float = 0.0,
        retry_s: float = 0.0,
    ) -> None:
        self.sessions = sessions
        self.claim = claim
        self.run_id = run_id
        self.n_clients = n_clients
        self.flush_rounds = flush_rounds
        self.flush_seconds = flush_seconds
        self.stop = stop or threading.Event()
        self.cancel = cancel or threading.Event()
        self.rounds: list[RoundRecord] = []
        self.last_round = start_round - 1
        self.last_flush = time.monotonic()
        self.cancel_requested = False
        self.names: set[str] = set()  # the writer's: metric names seen so far
        self.busy_s = 0.0
        self.writer_cpu_s = 0.0
        self.retry_s = retry_s
        self.tally, self.chunks = in_transaction(
            sessions, f"run {run_id}: read its history", self._history, retry_s
        )
        self.stored_through = self.tally.next_round - 1
        self.checkpoint: dict[str, Any] | None = None
        self.checkpoint_seconds = checkpoint_seconds
        self.checkpoint_at = -math.inf  # when the last checkpoint was kept
        self.last_weights: tuple[tuple[str, bytes, str, bytes], bytes] | None = None  # writer's
        self.pending: queue.Queue[Batch | None] = queue.Queue()
        self.in_flight = threading.Semaphore(2)  # batches handed over, not yet written
        self.failure: BaseException | None = None
        self.writer = threading.Thread(
            target=self._write_all, name=f"recorder-{run_id}", daemon=True
        )
        self.writer.start()

    def _history(self, session: Session) -> tuple[SelectionTally, ChunkWriter]:
        """The selection tally and the open metric chunks the writer continues."""
        tally = selection_tally(session, self.run_id, self.n_clients)
        c = MetricChunk
        open_chunks = session.execute(
            select(c.name, c.chunk, c.present, c.values).where(
                c.run_id == self.run_id, c.chunk == max(tally.next_round - 1, 0) // CHUNK
            )
        ).all()
        return tally, ChunkWriter(self.run_id, open_chunks)

    def on_round(self, record: RoundRecord) -> None:
        started = time.perf_counter()
        if record.round > self.stored_through:
            self.rounds.append(record)
        self.last_round = record.round
        due = time.monotonic() - self.last_flush >= self.flush_seconds
        if due or len(self.rounds) >= self.flush_rounds:
            self._hand_over()
        self.busy_s += time.perf_counter() - started

    def on_checkpoint(self, state: dict[str, Any]) -> None:
        now = time.monotonic()
        if self.should_stop() or now - self.checkpoint_at >= self.checkpoint_seconds:
            self.checkpoint = state  # a snapshot: the engine never changes it afterwards
            self.checkpoint_at = now

    def should_stop(self) -> bool:
        return self.cancel_requested or self.cancel.is_set() or self.stop.is_set()

    def close(self) -> None:
        """Write what is buffered, wait for the writer and stop it; raises its error."""
        started = time.perf_counter()
        try:
            if self.writer.is_alive():
                self._hand_over()
        finally:
            self.abandon()
            self.busy_s += time.perf_counter() - started
        if self.failure is not None:
            raise self.failure

    def abandon(self) -> None:
        """Stop the writer after the batches already handed over; what is still
        buffered is dropped (a run that failed). Does nothing once stopped."""
        if self.writer.is_alive():
            self.pending.put(None)
            self.writer.join()

    def _hand_over(self) -> None:
        if self.failure is not None:
            raise self.failure
        self.in_flight.acquire()
        self.pending.put(Batch(self.rounds, self.last_round + 1, self.checkpoint))
        self.rounds, self.checkpoint = [], None
        self.last_flush = time.monotonic()

    def _write_all(self) -> None:
        while (batch := self.pending.get()) is not None:
            started = time.thread_time()
            try:
                if self.failure is None:  # else drained unwritten until the error is seen
                    self._write(batch)
            except BaseException as err:
                self.failure = err
            finally:
                self.in_flight.release()
            self.writer_cpu_s += time.thread_time() - started

    def _client_rows(self, rounds: list[RoundRecord], gaps: np.ndarray) -> list[dict[str, Any]]:
        """The rounds' packed rows, with their selection gaps (concatenated)."""
        available = pack_available_many([r.available for r in rounds], self.n_clients)
        selected = pack_ids_many([r.selected for r in rounds], self.n_clients)
        packed_gaps = pack_gaps_many(gaps, [len(r.selected) for r in rounds])
        return [
            {
                "run_id": self.run_id,
                "round": record.round,
                "available": available[i],
                "selected": selected[i],
                "gaps": packed_gaps[i],
                "weights": self._pack_weights(record.weights),
                "client_acc": pack_acc(record.client_acc),
            }
            for i, record in enumerate(rounds)
        ]

    def _new_names(self, rounds: list[RoundRecord]) -> set[str] | None:
        """All metric names seen so far, if these rounds brought new ones."""
        seen = {"wall_s"}.union(*(r.metrics for r in rounds)) if rounds else set()
        if self.names.issuperset(seen):
            return None
        self.names |= seen
        return set(self.names)

    def _pack_weights(self, weights: ClientWeights) -> bytes:
        """Memory algorithms weight the same clients alike round after round: the last
        packed weights are reused while their raw bytes do not change (comparing bytes
        costs a tenth of comparing the arrays)."""
        ids, values = weights.ids, weights.values
        raw = (ids.dtype.str, ids.tobytes(), values.dtype.str, values.tobytes())
        if self.last_weights is None or self.last_weights[0] != raw:
            packed = pack_weights(weights.ids, weights.values, self.n_clients)
            self.last_weights = (raw, packed)
        return self.last_weights[1]

    def _write(self, batch: Batch) -> None:
        rows = self._pack(batch)
        what = f"run {self.run_id}: record the rounds before {batch.rounds_done}"
        in_transaction(
            self.sessions, what, lambda session: self._store(session, rows), self.retry_s
        )

    def _pack(self, batch: Batch) -> Rows:
        """The batch's rows; moves the selection tally and the metric chunks on."""
        rounds = batch.rounds
        gaps, marks = self.tally.advance_many(
            [r.round for r in rounds], [r.selected for r in rounds]
        )
        for r in rounds:
            self.chunks.add(r.round, {**r.metrics, "wall_s": r.wall_s})
        state = batch.checkpoint
        return Rows(
            rounds_done=batch.rounds_done,
            names=self._new_names(rounds),
            clients=self._client_rows(rounds, gaps),
            marks=marks,
            chunks=self.chunks.take(),
            checkpoint=None if state is None else (int(state["round"]), pack_checkpoint(state)),
        )

    def _store(self, session: Session, rows: Rows) -> None:
        progress: dict[str, Any] = {"rounds_done": rows.rounds_done, "heartbeat_at": utcnow()}
        if rows.names is not None:
            run = session.get(Run, self.run_id)
            known = set(run.metric_names) if run else set()
            progress["metric_names"] = sorted(rows.names | known)
        stmt = update(Run).where(Run.id == self.run_id)
        if self.claim is not None:
            stmt = stmt.where(Run.claim == self.claim)
        # On the connection: a Core statement, without the ORM's bulk-update machinery.
        returning = stmt.values(**progress).returning(Run.cancel_requested)
        row = session.connection().execute(returning).first()
        if row is None:
            raise RunLost(f"run {self.run_id} was deleted or taken over by another execution")
        self.cancel_requested = bool(row[0])
        insert_ignore(session, RoundClients.__table__, rows.clients)  # type: ignore[arg-type]
        insert_ignore(session, StalenessMark.__table__, rows.marks)  # type: ignore[arg-type]
        keys = ["run_id", "name", "chunk"]
        upsert_many(session, MetricChunk.__table__, rows.chunks, keys)  # type: ignore[arg-type]
        if rows.checkpoint is not None:
            save_checkpoint(session, self.run_id, *rows.checkpoint)
