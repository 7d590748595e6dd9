"""The engine's sink in the service: buffers rounds and hands them in batches to a
writer thread, so the simulation does not wait for the database."""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from db.retry import in_transaction
from worker.engine import ModelFile, RoundRecord
from worker.round_rows import RoundRows, Rows, RunLost

__all__ = ["Recorder", "RunLost"]


@dataclass
class Batch:
    """What one database transaction writes: the rounds since the last, the run's
    progress, the checkpoint that goes with them, and the final model with the last."""

    rounds: list[RoundRecord]
    rounds_done: int
    checkpoint: dict[str, Any] | None
    model: ModelFile | None = None


class Recorder:
    """Collects the rounds (the engine builds a fresh record each round, so records are
    kept as they are) and, every `flush_rounds` rounds or `flush_seconds` seconds,
    whichever comes first, hands them to its writer thread, which writes them in one
    transaction with the run's progress and heartbeat (handed over in batches, the
    writer wakes twice a second rather than every round). All the work a round needs
    beyond keeping its record (selection gaps, staleness marks, metric chunks, packing)
    is the writer's, a batch at a time: the simulation's thread spends a few
    microseconds a round here.

    The final model (`on_model`, once the run completes) travels with the last batch, so a
    run that succeeded always has it. A checkpoint (a snapshot the engine never changes
    afterwards) travels with the next batch and is packed by the writer, so it is written
    with the rounds before it and a resumed run never misses a round; a newer checkpoint
    replaces one still waiting.
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
    the CPU time of the writer thread. `clock` (seconds, monotonic) times the flushes and
    the checkpoints' interval.
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
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clock = clock
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
        self.last_flush = self.clock()
        self.cancel_requested = False
        self.busy_s = 0.0
        self.writer_cpu_s = 0.0
        self.retry_s = retry_s
        self.rows = in_transaction(  # the writer's
            sessions,
            f"run {run_id}: read its history",
            lambda session: RoundRows.load(session, run_id, n_clients),
            retry_s,
        )
        self.stored_through = self.rows.next_round - 1
        self.checkpoint: dict[str, Any] | None = None
        self.model: ModelFile | None = None
        self.checkpoint_seconds = checkpoint_seconds
        self.checkpoint_at = -math.inf  # when the last checkpoint was kept
        self.pending: queue.Queue[Batch | None] = queue.Queue()
        self.in_flight = threading.Semaphore(2)  # batches handed over, not yet written
        self.failure: BaseException | None = None
        self.writer = threading.Thread(
            target=self._write_all, name=f"recorder-{run_id}", daemon=True
        )
        self.writer.start()

    def on_round(self, record: RoundRecord) -> None:
        started = time.perf_counter()
        if record.round > self.stored_through:
            self.rounds.append(record)
        self.last_round = record.round
        due = self.clock() - self.last_flush >= self.flush_seconds
        if due or len(self.rounds) >= self.flush_rounds:
            self._hand_over()
        self.busy_s += time.perf_counter() - started

    def on_checkpoint(self, state: dict[str, Any]) -> None:
        now = self.clock()
        if self.should_stop() or now - self.checkpoint_at >= self.checkpoint_seconds:
            self.checkpoint = state  # a snapshot: the engine never changes it afterwards
            self.checkpoint_at = now

    def on_model(self, model: ModelFile) -> None:
        self.model = model  # written with the last batch, at `close`

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
        self.pending.put(Batch(self.rounds, self.last_round + 1, self.checkpoint, self.model))
        self.rounds, self.checkpoint, self.model = [], None, None
        self.last_flush = self.clock()

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

    def _write(self, batch: Batch) -> None:
        model = None if batch.model is None else batch.model.to_bytes()
        rows = self.rows.pack(batch.rounds, batch.rounds_done, batch.checkpoint, model)
        what = f"run {self.run_id}: record the rounds before {batch.rounds_done}"
        in_transaction(
            self.sessions, what, lambda session: self._store(session, rows), self.retry_s
        )

    def _store(self, session: Session, rows: Rows) -> None:
        self.cancel_requested = self.rows.store(session, rows, self.claim)
