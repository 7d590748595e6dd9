from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import delete, func, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from db.models import Checkpoint, RoundClients, Run
from db.packing import unpack_weights
from db.runs import claim_run, finish_run, load_checkpoint
from tests.db.records import make_run, record
from worker import round_rows as round_rows_module
from worker.recorder import Recorder, RunLost


def test_checkpoint_is_written_with_every_round_before_it(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Batches of 4 rounds; checkpoints after rounds 2 and 5 travel with the batches
    # that hold rounds 0..3 and 4..7, and the later one replaces none still waiting.
    seen: list[tuple[int, int]] = []
    save = round_rows_module.save_checkpoint

    def checking_save(session: Session, run_id: int, next_round: int, state: bytes) -> None:
        stored = session.scalar(
            select(func.count())
            .select_from(RoundClients)
            .where(RoundClients.run_id == run_id, RoundClients.round < next_round)
        )
        seen.append((next_round, stored or 0))
        save(session, run_id, next_round, state)

    monkeypatch.setattr(round_rows_module, "save_checkpoint", checking_save)
    run_id = make_run(sessions, 2, 8)
    rec = Recorder(sessions, run_id, 2, flush_rounds=4, flush_seconds=60)
    for t in range(8):
        rec.on_round(record(t, [0, 1], [t % 2]))
        if t in (2, 5):
            rec.on_checkpoint({"round": t + 1, "marker": t})
    rec.close()
    assert seen == [(3, 3), (6, 6)]
    with sessions() as session:
        state = load_checkpoint(session, run_id)
    assert state is not None and state["marker"] == 5


def test_newer_checkpoint_replaces_one_still_waiting(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    saved: list[int] = []
    save = round_rows_module.save_checkpoint

    def counting_save(session: Session, run_id: int, next_round: int, state: bytes) -> None:
        saved.append(next_round)
        save(session, run_id, next_round, state)

    monkeypatch.setattr(round_rows_module, "save_checkpoint", counting_save)
    run_id = make_run(sessions, 2, 8)
    rec = Recorder(sessions, run_id, 2, flush_rounds=100, flush_seconds=60)
    for t in range(6):
        rec.on_round(record(t, [0, 1], [t % 2]))
        if t in (2, 5):
            rec.on_checkpoint({"round": t + 1})
    rec.close()
    assert saved == [6]  # one write, at close
    with sessions() as session:
        rounds = session.scalars(select(Checkpoint.round).where(Checkpoint.run_id == run_id))
        assert list(rounds) == [6]


def test_writer_error_reaches_the_simulation(sessions: sessionmaker[Session]) -> None:
    run_id = make_run(sessions, 2, 8)
    rec = Recorder(sessions, run_id, 2, flush_rounds=2, flush_seconds=60)
    with sessions.begin() as session:  # every later write of client rows fails
        session.execute(text("DROP TABLE round_clients"))
    with pytest.raises(DBAPIError):
        for t in range(8):
            rec.on_round(record(t, [0, 1], [t % 2]))
        rec.close()
    rec.abandon()
    assert not rec.writer.is_alive()


def test_run_deleted_under_a_live_recorder(sessions: sessionmaker[Session]) -> None:
    run_id = make_run(sessions, 2, 8)
    rec = Recorder(sessions, run_id, 2, flush_rounds=2, flush_seconds=60)
    with sessions.begin() as session:
        session.execute(delete(Run).where(Run.id == run_id))
    with pytest.raises(RunLost):
        for t in range(8):
            rec.on_round(record(t, [0, 1], [t % 2]))
        rec.close()
    rec.abandon()
    assert not rec.writer.is_alive()


def test_cancel_flag_is_read_at_each_write(sessions: sessionmaker[Session]) -> None:
    run_id = make_run(sessions, 2, 8)
    rec = Recorder(sessions, run_id, 2, flush_rounds=1, flush_seconds=60)
    rec.on_round(record(0, [0, 1], [0]))
    assert not rec.should_stop()
    with sessions.begin() as session:
        session.get_one(Run, run_id).cancel_requested = True
    rec.on_round(record(1, [0, 1], [1]))
    rec.close()
    assert rec.should_stop()


def test_taken_over_run_stops_the_old_execution(sessions: sessionmaker[Session]) -> None:
    run_id = make_run(sessions, 2, 8)
    with sessions.begin() as session:
        first = claim_run(session, run_id, "a", lease_s=60)
        assert first is not None and first.claim is not None
        old_claim = first.claim
    rec = Recorder(sessions, run_id, 2, flush_rounds=1, flush_seconds=60, claim=old_claim)
    rec.on_round(record(0, [0, 1], [0]))
    rec.on_round(record(1, [0, 1], [1]))
    rec.abandon()  # the first two rounds are written
    with sessions.begin() as session:  # silent past the lease: another worker takes over
        assert claim_run(session, run_id, "b", lease_s=0) is not None
    rec = Recorder(sessions, run_id, 2, flush_rounds=1, flush_seconds=60, claim=old_claim)
    with pytest.raises(RunLost):
        for t in range(2, 6):
            rec.on_round(record(t, [0, 1], [t % 2]))
        rec.close()
    rec.abandon()
    with sessions.begin() as session:
        stored = session.scalars(select(RoundClients.round).where(RoundClients.run_id == run_id))
        assert list(stored) == [0, 1]
        assert not finish_run(session, run_id, "succeeded", claim=old_claim)
        run = session.get_one(Run, run_id)
        assert (run.status, run.worker) == ("running", "b")


def test_repeated_weights_are_stored_for_every_round(sessions: sessionmaker[Session]) -> None:
    # The writer reuses the last packed weights while they repeat; a change must show.
    run_id = make_run(sessions, 3, 6)
    rec = Recorder(sessions, run_id, 3, flush_rounds=3, flush_seconds=60)
    chosen = [[0, 1], [0, 1], [2], [0, 1], [0, 1, 2], [0, 1, 2]]
    for t, selected in enumerate(chosen):
        rec.on_round(record(t, [0, 1, 2], selected))
    rec.close()

    with sessions() as session:
        rows = session.execute(
            select(RoundClients.weights)
            .where(RoundClients.run_id == run_id)
            .order_by(RoundClients.round)
        ).scalars()
        stored = [unpack_weights(blob, 3) for blob in rows]
    assert stored == [{c: float(np.float32(1 / len(s))) for c in s} for s in chosen]


class Clock:
    """A monotonic clock that moves only when the test moves it."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def test_checkpoints_are_kept_at_most_once_per_interval(sessions: sessionmaker[Session]) -> None:
    run_id = make_run(sessions, 2, 8)
    clock = Clock()
    rec = Recorder(
        sessions, run_id, 2, flush_rounds=1, flush_seconds=60, checkpoint_seconds=1.5, clock=clock
    )
    kept = []
    for t, pause in enumerate([0.0, 1.0, 0.4, 0.1, 1.4]):
        clock.advance(pause)
        rec.on_checkpoint({"round": t})
        kept.append(rec.checkpoint is not None)
        rec.on_round(record(t, [0, 1], [t % 2]))  # hands the checkpoint over with round t
    rec.close()

    # offered at 0, 1.0, 1.4, 1.5 and 2.9 s: the first, then the first 1.5 s after it
    assert kept == [True, False, False, True, False]
    with sessions() as session:
        state = load_checkpoint(session, run_id)
    assert state is not None and state["round"] == 3


def test_rounds_are_handed_over_once_the_flush_interval_passes(
    sessions: sessionmaker[Session],
) -> None:
    run_id = make_run(sessions, 2, 8)
    clock = Clock()
    rec = Recorder(sessions, run_id, 2, flush_rounds=100, flush_seconds=2.0, clock=clock)
    waiting = []
    for t, pause in enumerate([0.5, 1.0, 0.5, 0.5, 1.4, 0.1]):
        clock.advance(pause)
        rec.on_round(record(t, [0, 1], [t % 2]))
        waiting.append(len(rec.rounds))
    rec.close()

    # at 0.5, 1.5, 2.0 (due: rounds 0-2 go), 2.5, 3.9, 4.0 s (2 s after the last: 3-5 go)
    assert waiting == [1, 2, 0, 1, 2, 0]
    with sessions() as session:
        stored = session.scalars(select(RoundClients.round).where(RoundClients.run_id == run_id))
        assert list(stored) == [0, 1, 2, 3, 4, 5]
