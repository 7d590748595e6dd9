"""Experiments: create a sweep (all runs validated first, all created or none), read,
delete with its runs."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Response
from fastapi.exceptions import RequestValidationError
from sqlalchemy import func, select

from api.admission import admit_sweep
from api.deps import DispatcherDep, Id, Offset, SessionDep, SettingsDep
from api.progress import board
from api.schemas.errors import NOT_FOUND, WITH_BODY, error_responses
from api.schemas.experiments import (
    MAX_RUNS,
    ExperimentCreate,
    ExperimentProgress,
    ExperimentPublic,
    ExperimentsPublic,
)
from api.sweep import SweepInvalid, expand
from db.bulk import delete_experiment
from db.models import Experiment, Run
from db.progress import Board, experiment_speed
from db.runs import new_run
from worker.data_root import portable
from worker.dispatch import queue_for

router = APIRouter(prefix="/api/experiments", tags=["experiments"])


def public(session: SessionDep, experiment: Experiment, on: Board) -> ExperimentPublic:
    rows = session.execute(
        select(Run.id, Run.status, Run.rounds_done, Run.rounds_total)
        .where(Run.experiment_id == experiment.id)
        .order_by(Run.id)
    ).all()
    by_status: dict[str, int] = {}
    for row in rows:
        by_status[row.status] = by_status.get(row.status, 0) + 1
    progress = ExperimentProgress(
        by_status=by_status,
        rounds_done=sum(row.rounds_done for row in rows),
        rounds_total=sum(row.rounds_total for row in rows),
        rounds_per_s=experiment_speed(session, on, experiment.id),
        eta_s=on.eta(row.id for row in rows),
    )
    ids = [row.id for row in rows]
    return ExperimentPublic.model_validate(
        {**vars(experiment), "run_ids": ids, "progress": progress}
    )


@router.post("", status_code=201, responses=WITH_BODY)
def create_experiment(
    body: ExperimentCreate, session: SessionDep, dispatcher: DispatcherDep, settings: SettingsDep
) -> ExperimentPublic:
    return create(body, session, dispatcher, settings)


def create(
    body: ExperimentCreate,
    session: SessionDep,
    dispatcher: DispatcherDep,
    settings: SettingsDep,
    preset: str | None = None,
) -> ExperimentPublic:
    """Validate every run of `body`, then create the experiment and its runs (all or
    none) and queue them; `preset`: the paper preset it reproduces."""
    size = len(body.seeds) * max(1, len(body.cells))
    for values in body.grid.values():
        size *= max(1, len(values))
    if size > MAX_RUNS:
        raise RequestValidationError(
            [
                {
                    "loc": ["body", "grid"],
                    "msg": f"{size} runs: at most {MAX_RUNS}",
                    "type": "value_error",
                }
            ]
        )
    try:
        explicit = [(c.label, c.set) for c in body.cells]
        cells = expand(body.base, body.grid, body.seeds, explicit)
    except SweepInvalid as err:
        raise RequestValidationError(err.errors) from None
    admit_sweep(cells, list(body.grid), settings)
    experiment = Experiment(
        name=body.name,
        base=body.base,
        grid=body.grid,
        seeds=body.seeds,
        cells=[c.model_dump() for c in body.cells],
        preset=preset,
    )
    session.add(experiment)
    session.flush()
    runs = []
    for cell in cells:
        name = f"{body.name} [{cell.label}] seed={cell.seed}".replace(" [] ", " ")
        config = portable(cell.config, settings).model_dump(mode="json")
        run = new_run(
            config,
            queue=queue_for(cell.config),
            notes=body.notes,
            name=name,
            experiment_id=experiment.id,
            cell=cell.label or body.name,
        )
        runs.append(run)
    session.add_all(runs)
    session.commit()
    for run in runs:
        dispatcher.submit(run.id, run.queue)
    return public(session, experiment, board(session, settings))


@router.get("", responses=error_responses(422))
def list_experiments(
    session: SessionDep,
    settings: SettingsDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Offset = 0,
) -> ExperimentsPublic:
    count = session.scalar(select(func.count()).select_from(Experiment)) or 0
    rows = session.scalars(
        select(Experiment).order_by(Experiment.id.desc()).limit(limit).offset(offset)
    )
    on = board(session, settings)
    return ExperimentsPublic(data=[public(session, e, on) for e in rows], count=count)


@router.get("/{experiment_id}", responses=NOT_FOUND)
def read_experiment(
    experiment_id: Id, session: SessionDep, settings: SettingsDep
) -> ExperimentPublic:
    """The experiment, and how far its runs are (`progress`)."""
    experiment = session.get(Experiment, experiment_id)
    if experiment is None:
        raise HTTPException(404, f"experiment {experiment_id} not found")
    return public(session, experiment, board(session, settings))


@router.delete("/{experiment_id}", status_code=204, responses=NOT_FOUND)
def delete(experiment_id: Id, session: SessionDep) -> Response:
    """The experiment and all its runs with their records (running ones stop within a
    poll)."""
    experiment = session.get(Experiment, experiment_id)
    if experiment is None:
        raise HTTPException(404, f"experiment {experiment_id} not found")
    delete_experiment(session, experiment)
    session.commit()
    return Response(status_code=204)
