"""External runs: their rounds in batches, and their end (the run itself is created by
`POST /api/runs` with `"source": "external"`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.exceptions import RequestValidationError

from api.deps import RunDep, SessionDep, SettingsDep
from api.external import check_batch, to_record
from api.schemas.errors import NOT_FOUND, WITH_BODY, error_responses
from api.schemas.ingest import FinishIn, RoundsIn, RoundsStored
from api.schemas.runs import RunPublic
from api.shown import one_run
from db.models import EXTERNAL
from worker.ingest import Conflict, finish_external, ingest_rounds

router = APIRouter(prefix="/api/runs", tags=["ingest"])

RESPONSES = NOT_FOUND | WITH_BODY | error_responses(409)


def _external(run: RunDep) -> None:
    if run.source != EXTERNAL:
        raise HTTPException(409, f"run {run.id} is simulated: the engine records its rounds")


def _target(config: dict[str, Any]) -> float | None:
    """The accuracy `rounds_to_target` counts to: `target_acc`, or a run config's
    `eval.target_acc` (a run of the engine, recorded by the CLI)."""
    section = config.get("eval")
    target = config.get("target_acc")
    if target is None and isinstance(section, dict):
        target = section.get("target_acc")
    return float(target) if isinstance(target, int | float) else None


@router.post("/{run_id}/rounds", responses=RESPONSES)
def post_rounds(
    run: RunDep, body: RoundsIn, session: SessionDep, settings: SettingsDep
) -> RoundsStored:
    """Store a batch of rounds, all or none. Idempotent per (run, round): a round stored
    already is accepted if it is sent again unchanged (counted `unchanged`) and is a 409
    if anything differs."""
    _external(run)
    check_batch(body.rounds, run.n_clients, settings.ingest_max_rounds)
    try:
        records = [to_record(r) for r in body.rounds]
        done = ingest_rounds(session, run, records, settings.ingest_window)
    except Conflict as err:
        raise HTTPException(409, str(err)) from None
    session.commit()
    return RoundsStored(stored=done.stored, unchanged=done.unchanged, rounds_done=done.rounds_done)


@router.post("/{run_id}/finish", responses=RESPONSES)
def finish(run: RunDep, body: FinishIn, session: SessionDep, settings: SettingsDep) -> RunPublic:
    """End the run; the server computes its summary from the recorded metrics (the
    summary of a simulated run). Finishing again with the same status changes nothing.
    `finished_at` (default: now) must not be before the run started."""
    _external(run)
    if body.finished_at and run.started_at and body.finished_at < run.started_at:
        msg = f"is before the run started ({run.started_at.isoformat()})"
        raise RequestValidationError(
            [{"loc": ["body", "finished_at"], "msg": msg, "type": "value_error"}]
        )
    target_acc = _target(run.config)
    try:
        finish_external(session, run, body.status, body.message, target_acc, body.finished_at)
    except Conflict as err:
        raise HTTPException(409, str(err)) from None
    session.commit()
    session.refresh(run)
    return one_run(run, session, settings)
