"""Tunes: create one (checked whole before anything is created), list them, read one
with its trials, importances and parallel-coordinates data."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request, Response
from sqlalchemy import func, select

from api.comparison import table, targets
from api.deps import Id, Offset, SessionDep, SettingsDep
from api.files import attachment
from api.routes.compare import Alpha, Columns, Labels, Reference, column_names, read_groups
from api.schemas.errors import NOT_FOUND, WITH_BODY, error_responses
from api.schemas.tunes import TuneCreate, TunePublic, TunesPublic
from api.tune_admission import admit_tune, refuse
from db.models import Run, Tune
from worker.engine import ConfigError
from worker.results.stats import DEFAULT_ALPHA
from worker.results.table import FORMATS, MEDIA_TYPES, Format, labelled, render
from worker.tune.loop import TuneLoop
from worker.tune.plan import TunePlan
from worker.tune.protocol import protocol, settings_table, shortfalls, tune_notes
from worker.tune.report import chosen, report, studies

router = APIRouter(prefix="/api/tunes", tags=["tunes"])


def public(tune: Tune, database_url: str) -> TunePublic:
    plan = TunePlan.from_json(tune.spec)
    shown = report(database_url, tune.id, plan, settled=tune.status != "tuning")
    fields = ("id", "name", "status", "spec", "created_at", "experiment_id")
    return TunePublic.model_validate({k: getattr(tune, k) for k in fields} | shown)


def plan_of(body: TuneCreate) -> TunePlan:
    from worker.presets import get_preset

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


def find_tune(session: SessionDep, tune_id: int) -> Tune:
    tune = session.get(Tune, tune_id)
    if tune is None:
        raise HTTPException(404, f"tune {tune_id} not found")
    return tune


@router.get("/{tune_id}", responses=NOT_FOUND)
def read_tune(tune_id: Id, session: SessionDep, settings: SettingsDep) -> TunePublic:
    """The tune: its progress per method, every trial, importances, parallel coordinates;
    its final comparison is the experiment `experiment_id` (`GET /api/compare`)."""
    return public(find_tune(session, tune_id), settings.database_url)


@router.get("/{tune_id}/tables", responses=NOT_FOUND | error_responses(409))
def tune_tables(
    tune_id: Id,
    session: SessionDep,
    settings: SettingsDep,
    format: Annotated[Format, Query(description=f"One of {', '.join(FORMATS)}.")] = "text",
    reference: Reference = None,
    alpha: Alpha = DEFAULT_ALPHA,
    columns: Columns = None,
    labels: Labels = None,
) -> Response:
    """Both tables of a finished tune, as the command prints them: the final comparison
    (its caption headed by the protocol, short methods flagged; its reference, level,
    columns and labels as `GET /api/compare`'s), then each method's chosen settings."""
    names = column_names(columns)
    tune = find_tune(session, tune_id)
    if tune.status != "done" or tune.experiment_id is None:
        raise HTTPException(409, f"tune {tune_id} is {tune.status}: its tables come once done")
    plan = TunePlan.from_json(tune.spec)
    outcomes = [chosen(m, s) for m, s in studies(settings.database_url, tune.id, plan).items()]
    ids = session.scalars(select(Run.id).where(Run.experiment_id == tune.experiment_id))
    _, groups, grouping = read_groups(
        session, ",".join(map(str, ids)), "test_acc", "experiment_cell", reference, labels, names
    )
    result = table(groups, grouping.reference, alpha, grouping.columns)
    sentence = protocol(plan.spec(), plan.validation, plan.seeds)
    flags = shortfalls(outcomes, plan.trials)
    notes = tune_notes(grouping.table_notes(), sentence, flags, grouping.labels)
    comparison = render(labelled(result, grouping.labels), format, targets(groups), notes)
    keys = [d.key for d in plan.dimensions]
    body = f"{comparison}\n{settings_table(outcomes, keys, format)}"
    return attachment(body.encode(), MEDIA_TYPES[format], f"tune-{tune_id}.{format}")
