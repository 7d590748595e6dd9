"""An execution's own transactions on its run, claim and outcome, retried through
transient database errors for `Settings.db_retry_s`."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from db.retry import in_transaction
from db.runs import claim_run, finish_run, load_checkpoint
from worker.engine import RunConfig
from worker.settings import Settings


@dataclass(frozen=True)
class Claimed:
    """What an execution starts from."""

    config: RunConfig
    checkpoint: dict[str, Any] | None
    cancel_requested: bool
    claim: str


def claim_execution(
    sessions: sessionmaker[Session], run_id: int, worker: str, settings: Settings
) -> Claimed | None:
    """Claim the run (see `claim_run`), read its config and last checkpoint; None if it is
    not ours to execute. A config that does not validate undoes the claim."""
    token = uuid.uuid4().hex  # chosen once, so a retry recognises its own earlier claim

    def claim(session: Session) -> Claimed | None:
        run = claim_run(session, run_id, worker, settings.lease_s, token)
        if run is None:
            return None
        config = RunConfig.model_validate(run.config)
        return Claimed(config, load_checkpoint(session, run_id), run.cancel_requested, token)

    return in_transaction(sessions, f"claim run {run_id}", claim, settings.db_retry_s)


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
