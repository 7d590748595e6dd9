"""Per-round scalars of a run: downsampled series, every round a page at a time, and the
exports (CSV, or a bundle with the config)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from api.bundle import bundle_json, bundle_zip, rounds_csv
from api.deps import RunDep, SessionDep, SessionsDep, SettingsDep
from api.files import disposition
from api.schemas.errors import NOT_FOUND
from api.schemas.runs import RunItem, without_config
from api.schemas.series import MetricsPublic, RoundsPublic, SeriesPublic
from api.shown import shown_run
from api.storable import NO_NUL
from db.metric_values import downsample, last_round, round_rows
from fedwatch.limits import INT32_MAX

router = APIRouter(prefix="/api/runs/{run_id}", tags=["metrics"], responses=NOT_FOUND)


@router.get("/metrics")
def read_metrics(
    run: RunDep,
    session: SessionDep,
    names: Annotated[
        str | None, Query(pattern=NO_NUL, description="Comma-separated; default all.")
    ] = None,
    start: Annotated[int, Query(ge=0, le=INT32_MAX)] = 0,
    end: Annotated[int | None, Query(ge=0, le=INT32_MAX)] = None,
    max_points: Annotated[int, Query(ge=1, le=20_000)] = 1000,
) -> MetricsPublic:
    """Each metric over rounds [start, end], downsampled for charts: cut into at most
    `max_points` buckets of equal width, each keeping its `last`, `min` and `max` value
    (so spikes survive) and labelled with its last round. For every round as recorded,
    read `/rounds`."""
    wanted = [n for n in names.split(",") if n] if names else list(run.metric_names)
    last = last_round(session, run.id)
    stop = -1 if last is None else min(last, end if end is not None else last)
    series = downsample(session, run.id, wanted, start, stop, max_points)
    return MetricsPublic(
        run_id=run.id,
        series={name: SeriesPublic(**vars(s)) for name, s in series.items()},
    )


@router.get("/rounds")
def read_rounds(
    run: RunDep,
    session: SessionDep,
    after: Annotated[int, Query(ge=-1, le=INT32_MAX, description="The page starts after it.")] = -1,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
    names: Annotated[
        str | None, Query(pattern=NO_NUL, description="Comma-separated; default all.")
    ] = None,
) -> RoundsPublic:
    """Every recorded round at full resolution, a page at a time, in round order: no
    downsampling (that is `/metrics`'s, for charts). Start with `after=-1` and pass each
    page's `next_after` until it is null."""
    wanted = [n for n in names.split(",") if n] if names else None
    rows = round_rows(session, run.id, after, limit, wanted)
    return RoundsPublic(data=rows, next_after=rows[-1]["round"] if len(rows) == limit else None)


@router.get(
    "/export.csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "One row per round"}},
)
def export_csv(run: RunDep, sessions: SessionsDep) -> StreamingResponse:
    """Every recorded round's metrics at full resolution, one row a round."""
    lines = rounds_csv(sessions, run.id, list(run.metric_names))
    return StreamingResponse(lines, media_type="text/csv", headers=disposition(f"run-{run.id}.csv"))


@router.get(
    "/export.{fmt}",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "The run with its config: run.json (the run and its summary), "
            "config.json, rounds.csv (every round's metrics), clients.csv (every round's "
            "available and selected ids and weights); or all of it as one JSON document",
            "content": {"application/zip": {}, "application/json": {}},
        }
    },
)
def export_bundle(
    fmt: Literal["zip", "json"], run: RunDep, settings: SettingsDep, sessions: SessionsDep
) -> StreamingResponse:
    item = without_config(shown_run(RunItem, run, settings.stall_s))
    info = {**item.model_dump(mode="json"), "metric_names": list(run.metric_names)}
    config = dict(run.config or {})
    headers = disposition(f"run-{run.id}.{fmt}")
    if fmt == "zip":
        return StreamingResponse(
            bundle_zip(sessions, info, config), media_type="application/zip", headers=headers
        )
    body = bundle_json(sessions, info, config)
    return StreamingResponse(body, media_type="application/json", headers=headers)
