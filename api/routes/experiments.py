"""Experiments: create a sweep (all runs validated first, all created or none), read,
delete with its runs."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from sqlalchemy import func, select

from api import submit
from api.deps import DispatcherDep, ExperimentDep, Offset, SessionDep, SettingsDep
from api.schemas.errors import NOT_FOUND, WITH_BODY, error_responses
from api.schemas.experiments import ExperimentCreate, ExperimentPublic, ExperimentsPublic
from api.shown import board, one_experiment
from db.bulk import delete_experiment
from db.models import Experiment

router = APIRouter(prefix="/api/experiments", tags=["experiments"])


@router.post("", status_code=201, responses=WITH_BODY)
def create_experiment(
    body: ExperimentCreate, session: SessionDep, dispatcher: DispatcherDep, settings: SettingsDep
) -> ExperimentPublic:
    experiment = submit.create_experiment(session, dispatcher, settings, body)
    return one_experiment(session, experiment, board(session, settings))


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
    return ExperimentsPublic(data=[one_experiment(session, e, on) for e in rows], count=count)


@router.get("/{experiment_id}", responses=NOT_FOUND)
def read_experiment(
    experiment: ExperimentDep, session: SessionDep, settings: SettingsDep
) -> ExperimentPublic:
    """The experiment, and how far its runs are (`progress`)."""
    return one_experiment(session, experiment, board(session, settings))


@router.delete("/{experiment_id}", status_code=204, responses=NOT_FOUND)
def delete(experiment: ExperimentDep, session: SessionDep) -> Response:
    """The experiment and all its runs with their records (running ones stop within a
    poll)."""
    delete_experiment(session, experiment)
    session.commit()
    return Response(status_code=204)
