"""Per-round scalars of a run: downsampled series, raw rows, CSV export."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from api.deps import MAX_INT, NO_NUL, RunDep, SessionDep, SessionsDep
from api.schemas.errors import NOT_FOUND
from api.schemas.series import MetricsPublic, RoundsPublic, SeriesPublic
from db.metrics import downsample, last_round, round_rows

router = APIRouter(prefix="/api/runs/{run_id}", tags=["metrics"], responses=NOT_FOUND)

CSV_CHUNK = 5000


@router.get("/metrics")
def read_metrics(
    run: RunDep,
    session: SessionDep,
    names: Annotated[
        str | None, Query(pattern=NO_NUL, description="Comma-separated; default all.")
    ] = None,
    start: Annotated[int, Query(ge=0, le=MAX_INT)] = 0,
    end: Annotated[int | None, Query(ge=0, le=MAX_INT)] = None,
    max_points: Annotated[int, Query(ge=1, le=20_000)] = 1000,
) -> MetricsPublic:
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
    after: Annotated[int, Query(ge=-1, le=MAX_INT)] = -1,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
) -> RoundsPublic:
    return RoundsPublic(data=round_rows(session, run.id, after, limit))


@router.get(
    "/export.csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "One row per round"}},
)
def export_csv(run: RunDep, sessions: SessionsDep) -> StreamingResponse:
    columns = ["round", *run.metric_names]
    run_id = run.id

    def lines() -> Iterator[str]:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, columns, lineterminator="\n")
        writer.writeheader()
        after = -1
        while True:
            with sessions() as session:
                rows = round_rows(session, run_id, after, CSV_CHUNK)
            if not rows:
                break
            writer.writerows(rows)
            after = rows[-1]["round"]
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
        yield buffer.getvalue()

    filename = f"run-{run_id}.csv"
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
    return StreamingResponse(lines(), media_type="text/csv", headers=headers)
