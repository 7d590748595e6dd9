"""`GET /api/compare`: several runs side by side, grouped."""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from fastapi import APIRouter, HTTPException, Query
from fastapi.exceptions import RequestValidationError

from api.comparison import RunData, config_diff, group_series, run_series, table
from api.deps import MAX_INT, NO_NUL, SessionDep
from api.schemas.compare import ComparePublic
from api.schemas.errors import NOT_FOUND
from db.metrics import final_values, full_series
from db.models import Run
from worker.engine.summary import LAST_VALUES

router = APIRouter(prefix="/api", tags=["compare"])

GroupBy = Literal["algorithm", "experiment_cell", "none"]
# At most 10 digits an id: beyond MAX_INT it is a 404 like any unknown id.
RunIds = Annotated[
    str,
    Query(pattern=r"^ *[0-9]{1,10} *(, *[0-9]{1,10} *)*$", description="Comma-separated run ids."),
]


def group_of(run: Run, group_by: GroupBy) -> str:
    if group_by == "algorithm":
        return run.algorithm
    if group_by == "experiment_cell" and run.cell:
        return run.cell
    return f"#{run.id} {run.name}"


def find_run(session: SessionDep, run_id: int) -> Run:
    run = session.get(Run, run_id) if run_id <= MAX_INT else None
    if run is None:
        raise HTTPException(404, f"run {run_id} not found")
    return run


def load(session: SessionDep, run: Run, metric: str, group: str) -> RunData:
    rounds, values = full_series(session, run.id, metric)
    wall_rounds, walls = full_series(session, run.id, "wall_s")
    wall = dict(zip(wall_rounds, walls, strict=True))
    sim_rounds, sims = full_series(session, run.id, "sim_time_s")
    sim = dict(zip(sim_rounds, sims, strict=True))
    scores = dict(run.summary or {})
    # A running run, or one summarised before these values existed: its last records.
    missing = {key: name for key, name in LAST_VALUES.items() if key not in scores}
    if missing:
        last = final_values(session, run.id, list(missing.values()))
        scores.update({key: last.get(name) for key, name in missing.items()})
    return RunData(
        id=run.id,
        name=run.name,
        group=group,
        seed=run.seed,
        rounds=np.asarray(rounds, dtype=np.int64),
        y=np.asarray([np.nan if v is None else v for v in values], dtype=np.float64),
        wall_s=np.asarray([wall.get(r) or 0.0 for r in rounds], dtype=np.float64),
        scores=scores,
        sim_time_s=np.asarray([sim.get(r) or 0.0 for r in rounds] if sim else [], dtype=np.float64),
        config=dict(run.config or {}),
    )


@router.get("/compare", responses=NOT_FOUND)
def compare(
    session: SessionDep,
    runs: RunIds,
    metric: Annotated[str, Query(pattern=NO_NUL)] = "test_acc",
    group_by: GroupBy = "algorithm",
    x: Annotated[
        Literal["round", "wall_s", "sim_time_s"],
        Query(
            description="x axis: round, wall time, or simulated time (runs without a "
            "simulated clock keep their rounds)."
        ),
    ] = "round",
    max_points: Annotated[int, Query(ge=2, le=20_000)] = 500,
    reference: str | None = None,
) -> ComparePublic:
    data: list[RunData] = []
    for run_id in dict.fromkeys(int(part) for part in runs.split(",")):
        run = find_run(session, run_id)
        data.append(load(session, run, metric, group_of(run, group_by)))
    groups: dict[str, list[RunData]] = {}
    for item in data:
        groups.setdefault(item.group, []).append(item)
    ref = reference if reference is not None else next(iter(groups))
    if ref not in groups:
        msg = f"not one of the groups: {', '.join(groups)}"
        raise RequestValidationError(
            [{"loc": ["query", "reference"], "msg": msg, "type": "value_error"}]
        )
    columns, rows, ttests = table(groups, ref)
    config_keys, config_values = config_diff(groups)
    for row in rows:
        row.config = config_values[row.group]
    return ComparePublic(
        metric=metric,
        x=x,
        runs=[run_series(r, x, max_points) for r in data],
        groups=[group_series(name, members, x, max_points) for name, members in groups.items()],
        columns=columns,
        table=rows,
        config_keys=config_keys,
        ttests=ttests,
    )
