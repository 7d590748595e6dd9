"""An execution's own transactions on its run: the claim (its supervisor's), the start
and the outcome (its process's), retried through transient database errors for
`Settings.db_retry_s`."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from db.models import Run
from db.retry import in_transaction
from db.runs import claim_run, finish_run, load_checkpoint, record_crash
from db.settings import Settings
from worker.engine import RunConfig, current, run_config_for


@dataclass(frozen=True)
class Claimed:
    """The token of an execution that claimed its run, and the run's queue."""

    claim: str
    queue: str


@dataclass(frozen=True)
class Start:
    """What a claimed execution starts from."""

    config: RunConfig
    checkpoint: dict[str, Any] | None
    cancel_requested: bool
    worker: str


def claim_execution(
    sessions: sessionmaker[Session], run_id: int, worker: str, settings: Settings
) -> Claimed | None:
    """Claim the run (see `claim_run`); None if it is not ours to execute."""
    token = uuid.uuid4().hex  # chosen once, so a retry recognises its own earlier claim

    def claim(session: Session) -> Claimed | None:
        run = claim_run(session, run_id, worker, settings.lease_s, token)
        return None if run is None else Claimed(token, run.queue)

    return in_transaction(sessions, f"claim run {run_id}", claim, settings.db_retry_s)


def start_execution(
    sessions: sessionmaker[Session], run_id: int, claim: str, settings: Settings
) -> Start | None:
    """The claimed run's config and last checkpoint; None if the run is gone or another
    execution holds it."""

    def read(session: Session) -> Start | None:
        run = session.get(Run, run_id)
        if run is None or run.claim != claim:
            return None
        config = run_config_for(current()).model_validate(run.config)
        checkpoint = load_checkpoint(session, run_id)
        return Start(config, checkpoint, run.cancel_requested, run.worker or "")

    return in_transaction(sessions, f"start run {run_id}", read, settings.db_retry_s)


def store_outcome(
    sessions: sessionmaker[Session],
    run_id: int,
    outcome: str,
    result: dict[str, Any] | None,
    error: str | None,
    claim: str,
    settings: Settings,
) -> bool:
    """`finish_run` with this execution's claim: whether the run was still ours."""

    def finish(session: Session) -> bool:
        return finish_run(session, run_id, outcome, result, error, claim=claim)

    return in_transaction(
        sessions, f"store the outcome of run {run_id}", finish, settings.db_retry_s
    )


def store_crash(
    sessions: sessionmaker[Session], run_id: int, claim: str, reason: str, settings: Settings
) -> str | None:
    """`record_crash` for this execution: the run's new status (None if not ours)."""

    def count(session: Session) -> str | None:
        return record_crash(session, run_id, claim, reason)

    return in_transaction(sessions, f"count a crash of run {run_id}", count, settings.db_retry_s)
