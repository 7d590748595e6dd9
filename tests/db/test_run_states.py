"""Run state transitions: crashes counted and held after the second, cancels of runs that
nothing executes, claims of runs with a cancel pending, the order of the queue."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.orm import Session, sessionmaker

from db.models import Run, utcnow
from db.runs import (
    cancel_run,
    claim_run,
    finish_run,
    list_runs,
    new_run,
    record_crash,
    requeue_running,
    requeue_stale,
    resume_run,
)
from db.standing import standings
from tests.api.helpers import example1


def add(
    sessions: sessionmaker[Session], status: str, silent_s: float = 0.0, **values: object
) -> int:
    with sessions.begin() as session:
        run = new_run(example1(10), queue="cpu")
        run.status = status
        run.heartbeat_at = utcnow() - timedelta(seconds=silent_s)
        for key, value in values.items():
            setattr(run, key, value)
        session.add(run)
        session.flush()
        return run.id


def state(sessions: sessionmaker[Session], run_id: int) -> tuple[str, int, str | None]:
    with sessions() as session:
        run = session.get_one(Run, run_id)
        return run.status, run.crashes, run.error


def test_a_restarted_server_resumes_a_run_once_then_holds_it(
    sessions: sessionmaker[Session],
) -> None:
    first, again = add(sessions, "running"), add(sessions, "running", crashes=1)
    waiting = add(sessions, "queued")
    with sessions.begin() as session:
        queued = [run.id for run in requeue_running(session)]
    assert queued == [waiting, first]  # queued again after its crash: behind `waiting`
    assert state(sessions, first) == ("queued", 1, None)
    status, crashes, error = state(sessions, again)
    assert (status, crashes) == ("failed", 2)
    assert error is not None and "crashed 2 times" in error and "server stopped" in error


def test_the_sweep_counts_a_crash_and_holds_a_run_at_the_second(
    sessions: sessionmaker[Session],
) -> None:
    once = add(sessions, "running", silent_s=30)
    twice = add(sessions, "running", silent_s=30, crashes=1)
    live = add(sessions, "running", silent_s=1)
    with sessions.begin() as session:
        assert requeue_stale(session, 10) == [(once, "cpu")]
    assert state(sessions, once)[:2] == ("queued", 1)
    status, crashes, error = state(sessions, twice)
    assert (status, crashes) == ("failed", 2)
    assert error is not None and "silent for more than 10 s" in error
    assert state(sessions, live)[:2] == ("running", 0)


def test_record_crash_applies_to_the_claiming_execution_only(
    sessions: sessionmaker[Session],
) -> None:
    run_id = add(sessions, "running", claim="mine")
    with sessions.begin() as session:
        assert record_crash(session, run_id, "theirs", "killed") is None
        assert record_crash(session, run_id, "mine", "killed by SIGKILL") == "queued"
    assert state(sessions, run_id) == ("queued", 1, None)


def test_resuming_by_hand_starts_the_crash_count_again(sessions: sessionmaker[Session]) -> None:
    run_id = add(sessions, "failed", crashes=2, error="crashed")
    with sessions.begin() as session:
        assert resume_run(session, session.get_one(Run, run_id))
    assert state(sessions, run_id) == ("queued", 0, None)


def test_cancel_ends_a_run_that_nothing_executes(sessions: sessionmaker[Session]) -> None:
    stuck = add(sessions, "running", silent_s=120)
    live = add(sessions, "running", silent_s=1)
    with sessions.begin() as session:
        assert cancel_run(session, session.get_one(Run, stuck), lease_s=60)
        assert cancel_run(session, session.get_one(Run, live), lease_s=60)
    assert state(sessions, stuck)[0] == "cancelled"
    with sessions() as session:
        running = session.get_one(Run, live)
        assert (running.status, running.cancel_requested) == ("running", True)


def test_a_run_with_a_cancel_pending_is_cancelled_instead_of_claimed(
    sessions: sessionmaker[Session],
) -> None:
    pending = add(sessions, "running", silent_s=120, cancel_requested=True)
    with sessions.begin() as session:
        assert claim_run(session, pending, "next", lease_s=60) is None
    assert state(sessions, pending)[0] == "cancelled"


def test_no_executor_takes_or_requeues_an_external_run(sessions: sessionmaker[Session]) -> None:
    # Its code sends the rounds: a server restart, a sweep or a worker leaves it running.
    silent = add(sessions, "running", silent_s=3600, source="external")
    with sessions.begin() as session:
        assert requeue_running(session) == []
        assert requeue_stale(session, lease_s=60) == []
        assert claim_run(session, silent, "worker-1", lease_s=60) is None
    assert state(sessions, silent) == ("running", 0, None)
    with sessions.begin() as session:
        assert not resume_run(session, session.get_one(Run, silent))
        assert cancel_run(session, session.get_one(Run, silent), lease_s=3600)
    assert state(sessions, silent)[0] == "cancelled"  # at once: nothing executes it


def test_a_run_queued_again_waits_behind_the_runs_queued_before(
    sessions: sessionmaker[Session],
) -> None:
    # A resumed run, and one stopped at a shutdown, go to the tail of the queue: the
    # executors take them after the runs already waiting, and that is where they show.
    resumed, stopped = add(sessions, "cancelled"), add(sessions, "running", claim="c")
    waiting = add(sessions, "queued")
    with sessions.begin() as session:
        assert resume_run(session, session.get_one(Run, resumed))
    with sessions.begin() as session:
        assert finish_run(session, stopped, "queued", claim="c")
    order = [waiting, resumed, stopped]

    with sessions() as session:
        board = standings(session, slots=1)
        listed, _ = list_runs(
            session, status=None, algorithm=None, experiment_id=None, q=None, limit=10,
            offset=0, by_activity=True,
        )  # fmt: skip
    with sessions.begin() as session:
        started = [run.id for run in requeue_running(session)]

    assert [board.active[i].queue_position for i in order] == [1, 2, 3]
    assert [run.id for run in listed] == order
    assert started == order  # what an embedded server submits at its start
