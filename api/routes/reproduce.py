"""Reproductions: a paper preset's comparison set over its seeds, run as an experiment
(`POST /api/presets/{name}/reproduce`), and its report (`GET /api/experiments/{id}/
reproduction`), computed by `worker.reproduction` as `fedwatch reproduce` computes it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.exceptions import RequestValidationError
from sqlalchemy import select

from api.deps import DispatcherDep, Id, SessionDep, SettingsDep
from api.routes.experiments import create
from api.schemas.errors import NOT_FOUND, WITH_BODY
from api.schemas.experiments import (
    ExperimentCell,
    ExperimentCreate,
    ExperimentPublic,
    ReproduceRequest,
)
from db.metrics import full_series
from db.models import Experiment, Run
from worker.data_root import missing_data, portable
from worker.engine import ConfigError
from worker.presets import PRESETS
from worker.reproduction.figures import Curve, run_curve
from worker.reproduction.report import build

router = APIRouter(prefix="/api", tags=["reproduce"])


@router.post("/presets/{name}/reproduce", status_code=201, responses=NOT_FOUND | WITH_BODY)
def reproduce(
    name: str,
    session: SessionDep,
    dispatcher: DispatcherDep,
    settings: SettingsDep,
    body: ReproduceRequest | None = None,
) -> ExperimentPublic:
    """Run the preset's comparison set (each method with its paper's settings) over the
    paper's seeds; the experiment then has a reproduction report."""
    preset = PRESETS.get(name)
    if preset is None:
        raise HTTPException(404, f"preset {name!r} not found")
    request = body or ReproduceRequest()
    variants = preset.variants
    if request.variant is not None and request.variant not in variants:
        known = ", ".join(variants) or "none"
        raise RequestValidationError(
            [
                {
                    "loc": ["body", "variant"],
                    "msg": f"unknown variant {request.variant!r} (known: {known})",
                    "type": "value_error",
                }
            ]
        )
    variant = request.variant or next(iter(variants), None)
    config = preset.run_config(variants[variant] if variant else [])
    if request.root is not None:
        config = config.model_copy(
            update={"data": config.data.model_copy(update={"root": request.root})}
        )
    at = ["body", "root"] if request.root is not None else ["path", "name"]
    try:
        missing = missing_data(config, settings)
        base = portable(config, settings).model_dump(mode="json")
    except ConfigError as err:  # the root leads outside the data root
        msg = str(err).removeprefix("data.root: ")
        error = {"loc": at, "msg": msg, "type": "value_error"}
        raise RequestValidationError([error]) from None
    if missing is not None:  # every run would fail at its start
        error = {"loc": at, "msg": f"needs {missing}", "type": "data_missing"}
        raise RequestValidationError([error])
    cells = [ExperimentCell(label=m.name, set=m.assignments()) for m in preset.compare]
    experiment = ExperimentCreate(
        name=f"{preset.name} reproduction" + (f" ({variant})" if variant else ""),
        base=base,
        cells=cells,
        seeds=request.seeds or list(preset.seeds),
    )
    return create(experiment, session, dispatcher, settings, preset=preset.name)


@router.get("/experiments/{experiment_id}/reproduction", responses=NOT_FOUND)
def reproduction(experiment_id: Id, session: SessionDep) -> dict[str, Any]:
    """The report so far: the finished runs' figures per method, the authors' code's
    and the paper's, the differences with Welch's p-values, and the mean curves."""
    experiment = session.get(Experiment, experiment_id)
    if experiment is None:
        raise HTTPException(404, f"experiment {experiment_id} not found")
    preset = PRESETS.get(experiment.preset or "")
    if preset is None:
        raise HTTPException(404, f"experiment {experiment_id} reproduces no preset")
    runs = session.scalars(select(Run).where(Run.experiment_id == experiment.id)).all()
    curves: dict[str, list[Curve]] = {}
    for run in runs:
        if run.status != "succeeded":
            continue
        rounds: dict[int, dict[str, float]] = {}
        for metric in ("initial_test_acc", "test_acc"):
            for t, value in zip(*full_series(session, run.id, metric), strict=True):
                if value is not None:
                    rounds.setdefault(t, {})[metric] = value
        method = run.cell or run.algorithm  # the cell of a method, named after it
        assert run.seed is not None  # a simulated run's: its config's
        curves.setdefault(method, []).append(run_curve(run.seed, sorted(rounds.items())))
    return build(preset, curves, runs_total=len(runs)).to_json()
