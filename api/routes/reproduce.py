"""Reproductions: a paper preset's comparison set over its seeds, run as an experiment
(`POST /api/presets/{name}/reproduce`), and its report (`GET /api/experiments/{id}/
reproduction`), computed by `worker.reproduction` as `fedwatch reproduce` computes it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from sqlalchemy import select

from api import submit
from api.deps import DispatcherDep, ExperimentDep, SessionDep, SettingsDep
from api.schemas.errors import NOT_FOUND, WITH_BODY
from api.schemas.experiments import ExperimentPublic, ReproduceRequest
from api.shown import board, one_experiment
from db.metric_values import full_series
from db.models import Run
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
    request = body or ReproduceRequest()
    experiment = submit.reproduce(session, dispatcher, settings, name, request)
    return one_experiment(session, experiment, board(session, settings))


@router.get("/experiments/{experiment_id}/reproduction", responses=NOT_FOUND)
def reproduction(experiment: ExperimentDep, session: SessionDep) -> dict[str, Any]:
    """The report so far: the finished runs' figures per method, the authors' code's
    and the paper's, the differences with Welch's p-values, and the mean curves."""
    preset = PRESETS.get(experiment.preset or "")
    if preset is None:
        raise HTTPException(404, f"experiment {experiment.id} reproduces no preset")
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
