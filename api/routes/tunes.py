"""Tunes: create one (checked whole before anything is created), list them, read one
with its trials, importances and parallel-coordinates data."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from sqlalchemy import func, select

from api.deps import Id, Offset, SessionDep, SettingsDep
from api.schemas.errors import NOT_FOUND, WITH_BODY, error_responses
from api.schemas.tunes import TuneCreate, TunePublic, TunesPublic
from api.tune_admission import admit_tune, refuse
from db.models import Tune
from worker.engine import ConfigError
from worker.tune.loop import TuneLoop
from worker.tune.plan import TunePlan
from worker.tune.report import report

router = APIRouter(prefix="/api/tunes", tags=["tunes"])


def public(tune: Tune, database_url: str) -> TunePublic:
    plan = TunePlan.from_json(tune.spec)
    shown = report(database_url, tune.id, plan, settled=tune.status != "tuning")
    fields = ("id", "name", "status", "spec", "created_at", "experiment_id")
    return TunePublic.model_validate({k: getattr(tune, k) for k in fields} | shown)


def plan_of(body: TuneCreate) -> TunePlan:
    from worker.engine.presets import get_preset

    try:
        preset = get_preset(body.preset)
    except ConfigError as err:
        raise refuse(["preset"], str(err)) from None
    methods = tuple(body.methods) or tuple(preset.method_names)
    for i, method in enumerate(methods):
        if method in methods[:i]:
            raise refuse(["methods", i], f"{method!r} is named twice")
    return TunePlan(
        preset=preset.name,
        methods=methods,
        space=tuple(body.space_texts()),
        trials=body.trials,
        seeds=body.seeds,
        objective=body.objective,
        validation=body.validation,
        sampler=body.sampler,
        sampler_seed=body.sampler_seed,
        grid_points=body.grid_points,
        pruner=body.pruner,
        prune_after=body.prune_after,
        parallel=body.parallel,
        set=tuple(body.set),
    )


@router.post("", status_code=201, responses=WITH_BODY)
def create_tune(
    body: TuneCreate, request: Request, session: SessionDep, settings: SettingsDep
) -> TunePublic:
    """Check the tune whole (a 422 naming the key at fault, and nothing created), store
    it; the server's tune loop then starts its trials."""
    plan = plan_of(body)
    admit_tune(plan, settings)
    tune = Tune(name=body.name or plan.preset, spec=plan.to_json(), status="tuning")
    session.add(tune)
    session.commit()
    loop: TuneLoop = request.app.state.tunes
    loop.wake()
    return public(tune, settings.database_url)


@router.get("", responses=error_responses(422))
def list_tunes(
    session: SessionDep,
    settings: SettingsDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Offset = 0,
) -> TunesPublic:
    count = session.scalar(select(func.count()).select_from(Tune)) or 0
    rows = session.scalars(select(Tune).order_by(Tune.id.desc()).limit(limit).offset(offset))
    return TunesPublic(data=[public(t, settings.database_url) for t in rows], count=count)


@router.get("/{tune_id}", responses=NOT_FOUND)
def read_tune(tune_id: Id, session: SessionDep, settings: SettingsDep) -> TunePublic:
    """The tune: its progress per method, every trial, importances, parallel coordinates;
    its final comparison is the experiment `experiment_id` (`GET /api/compare`)."""
    tune = session.get(Tune, tune_id)
    if tune is None:
        raise HTTPException(404, f"tune {tune_id} not found")
    return public(tune, settings.database_url)
