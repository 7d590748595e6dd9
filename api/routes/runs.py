"""Runs: submit, list, read, edit, cancel, resume, delete."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Response

from api import submit
from api.deps import DispatcherDep, Offset, RunDep, SessionDep, SettingsDep
from api.schemas.errors import NOT_FOUND, WITH_BODY, error_responses
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
from api.shown import board, one_run, shown_run
from api.storable import NO_NUL
from db.bulk import archive_runs, delete_runs, existing, tag_runs
from db.runs import cancel_run, edit_run, list_runs
from db.status import Status
from fedwatch.limits import INT32_MAX, TAG_MAX
from worker.engine import metrics

router = APIRouter(prefix="/api/runs", tags=["runs"])


CONFLICT = NOT_FOUND | error_responses(409)


@router.post("", status_code=201, responses=WITH_BODY)
def create_run(
    body: RunBody, session: SessionDep, dispatcher: DispatcherDep, settings: SettingsDep
) -> RunPublic:
    """A config the engine simulates, or (`"source": "external"`) an external run that
    takes its rounds through `POST /api/runs/{id}/rounds`."""
    return one_run(submit.create_run(session, dispatcher, settings, body), session, settings)


@router.get("", responses=error_responses(422))
def read_runs(
    session: SessionDep,
    settings: SettingsDep,
    status: Status | None = None,
    algorithm: Annotated[str | None, Query(pattern=NO_NUL)] = None,
    experiment_id: Annotated[int | None, Query(ge=1, le=INT32_MAX)] = None,
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
    tag: Annotated[str | None, Query(max_length=TAG_MAX, pattern=NO_NUL)] = None,
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
    return one_run(submit.resume(session, dispatcher, settings, run), session, settings)


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
