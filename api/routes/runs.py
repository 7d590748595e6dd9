"""Runs: submit, list, read, edit, cancel, resume, delete."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Response

from api.admission import admit
from api.deps import MAX_INT, DispatcherDep, Offset, RunDep, SessionDep, SettingsDep
from api.external import create_external
from api.progress import board, one_run, shown_run
from api.schemas.errors import NOT_FOUND, WITH_BODY, error_responses
from api.schemas.ingest import ExternalRunCreate
from api.schemas.runs import (
    Ranking,
    RunBody,
    RunEdit,
    RunItem,
    RunPublic,
    RunsBulk,
    RunsBulkDone,
    RunsPublic,
    without_config,
)
from api.storable import NO_NUL
from db.bulk import archive_runs, delete_runs, existing, tag_runs
from db.models import EXTERNAL
from db.runs import cancel_run, edit_run, list_runs, new_run, resume_run
from db.status import Status
from worker.data_root import portable
from worker.dispatch import queue_for
from worker.engine import current, metrics, run_config_for

router = APIRouter(prefix="/api/runs", tags=["runs"])


CONFLICT = NOT_FOUND | error_responses(409)


@router.post("", status_code=201, responses=WITH_BODY)
def create_run(
    body: RunBody, session: SessionDep, dispatcher: DispatcherDep, settings: SettingsDep
) -> RunPublic:
    """A config the engine simulates, or (`"source": "external"`) an external run that
    takes its rounds through `POST /api/runs/{id}/rounds`."""
    if isinstance(body, ExternalRunCreate):
        return one_run(create_external(session, body), session, settings)
    config = body.config
    admit(config, settings)
    stored = portable(config, settings).model_dump(mode="json")
    run = new_run(stored, queue=queue_for(config), notes=body.notes)
    session.add(run)
    session.commit()
    dispatcher.submit(run.id, run.queue)
    return one_run(run, session, settings)


@router.get("", responses=error_responses(422))
def read_runs(
    session: SessionDep,
    settings: SettingsDep,
    status: Status | None = None,
    algorithm: Annotated[str | None, Query(pattern=NO_NUL)] = None,
    experiment_id: Annotated[int | None, Query(ge=1, le=MAX_INT)] = None,
    q: Annotated[
        str | None,
        Query(
            max_length=200,
            pattern=NO_NUL,
            description="Text in the name, the notes or a tag (case-insensitive).",
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Offset = 0,
    rank_by: Annotated[
        Ranking | None,
        Query(description="Best first by this summary value, by its direction in the catalogue."),
    ] = None,
    tag: Annotated[str | None, Query(max_length=40, pattern=NO_NUL)] = None,
    order: Annotated[
        Literal["newest", "activity"],
        Query(
            description="`activity`: running runs first, then queued ones in the order they "
            "start, then the rest newest first. `rank_by`, when given, orders instead."
        ),
    ] = "newest",
    config: Annotated[
        bool, Query(description="Each run with its config (for reading runs into a table).")
    ] = False,
    archived: Annotated[
        Literal["no", "yes", "any"],
        Query(description="Archived runs are left out unless asked for: `yes` or `any`."),
    ] = "no",
) -> RunsPublic:
    runs, count = list_runs(
        session,
        status=status,
        algorithm=algorithm,
        experiment_id=experiment_id,
        q=q,
        limit=limit,
        offset=offset,
        rank_by=rank_by,
        tag=tag,
        by_activity=order == "activity",
        archived={"no": False, "yes": True, "any": None}[archived],
        higher_is_better=rank_by is not None and metrics.by_name()[rank_by].better == "higher",
        stall_s=settings.stall_s,
    )
    on = board(session, settings)
    data = [shown_run(RunItem, r, settings.stall_s, on) for r in runs]
    if not config:
        data = [without_config(item) for item in data]
    return RunsPublic(data=data, count=count)


@router.get("/{run_id:int}", responses=NOT_FOUND)
def read_run(run: RunDep, session: SessionDep, settings: SettingsDep) -> RunPublic:
    return one_run(run, session, settings)


@router.patch("/{run_id:int}", responses=NOT_FOUND | WITH_BODY)
def edit(run: RunDep, body: RunEdit, session: SessionDep, settings: SettingsDep) -> RunPublic:
    """Rename a run, replace its notes or its tags, archive it or bring it back; fields
    left out stay as they are."""
    edit_run(run, body.name, body.notes, body.tags, body.archived)
    session.commit()
    session.refresh(run)
    return one_run(run, session, settings)


@router.post("/{run_id}/cancel", responses=CONFLICT)
def cancel(run: RunDep, session: SessionDep, settings: SettingsDep) -> RunPublic:
    """A queued run is cancelled at once, a running one at the end of its round or
    within 2 s, whichever comes first (it keeps its last checkpoint)."""
    if not cancel_run(session, run, settings.lease_s):
        raise HTTPException(409, f"run {run.id} already {run.status}")
    session.commit()
    session.refresh(run)
    return one_run(run, session, settings)


@router.post("/{run_id}/resume", responses=CONFLICT)
def resume(
    run: RunDep, session: SessionDep, dispatcher: DispatcherDep, settings: SettingsDep
) -> RunPublic:
    """Queue a failed or cancelled run again; it continues from its last checkpoint."""
    if run.source == EXTERNAL:
        raise HTTPException(409, f"run {run.id} is external: only its own code resumes it")
    if not resume_run(session, run):
        detail = f"run {run.id} is {run.status}: only a failed or cancelled run resumes"
        raise HTTPException(409, detail)
    # before the commit: a refused run is rolled back to what it was
    admit(run_config_for(current()).model_validate(run.config), settings, loc=("config",))
    session.commit()
    session.refresh(run)
    dispatcher.submit(run.id, run.queue)
    return one_run(run, session, settings)


@router.delete("/{run_id:int}", status_code=204, responses=NOT_FOUND)
def delete_run(run: RunDep, session: SessionDep) -> Response:
    """Any run, running or not: a running run's process is stopped within a poll."""
    session.delete(run)
    session.commit()
    return Response(status_code=204)


@router.post("/bulk", responses=WITH_BODY)
def bulk(body: RunsBulk, session: SessionDep) -> RunsBulkDone:
    """One action on many runs (the runs table's selection), in one transaction: delete
    them (running ones stop within a poll), archive them or bring them back, give them a
    tag or take it off. Ids that name no run are listed in `missing`."""
    ids = existing(session, body.ids)
    if body.action == "delete":
        delete_runs(session, ids)
    elif body.action in ("archive", "unarchive"):
        archive_runs(session, ids, body.action == "archive")
    elif body.tag is not None:
        tag_runs(session, ids, body.tag, body.action == "tag")
    session.commit()
    missing = [i for i in dict.fromkeys(body.ids) if i not in set(ids)]
    return RunsBulkDone(action=body.action, done=ids, missing=missing)
