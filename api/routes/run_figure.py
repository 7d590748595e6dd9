"""`GET /api/runs/{id}/figure.{pdf,svg,png}`: a run's curves as a figure for a paper, one
panel per chart of the run page (the catalogue's panels)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from fastapi.exceptions import RequestValidationError

from api.deps import RunDep, SessionDep
from api.files import attachment
from api.routes.compare import FIGURE_FILES
from api.schemas.errors import NOT_FOUND
from api.storable import NO_NUL
from db.metric_values import full_series
from worker.engine import MetricSpec, metrics
from worker.results import figures
from worker.results.curves import X_LABELS, XAxis, thin

router = APIRouter(prefix="/api/runs/{run_id}", tags=["metrics"], responses=NOT_FOUND)

DEFAULT_PANELS = ("accuracy", "loss", "param", "gap")  # a run's results, unless asked
MAX_POINTS = 2000
NAMES = "Comma-separated round metrics; default: accuracy and loss, as recorded."


def chosen(names: list[str], recorded: list[str]) -> list[str]:
    """The metrics asked for, or those of the default panels the run recorded (else its
    first recorded metric)."""
    if names:
        return names
    specs = metrics.by_name()
    found = [n for n in recorded if n in specs and specs[n].panel in DEFAULT_PANELS]
    return found or [n for n in recorded if n != "wall_s"][:1]


def panel_axis(panel: str, specs: list[MetricSpec]) -> figures.Axis:
    """One metric: its label and unit; several: the panel's name and their shared unit."""
    if len(specs) == 1:
        return figures.Axis.of(specs[0], specs[0].name)
    units = {s.unit for s in specs}
    unit = f" ({units.pop()})" if len(units) == 1 and "" not in units else ""
    return figures.Axis(panel + unit, specs[0].scale if len({s.scale for s in specs}) == 1 else 1.0)


@router.get("/figure.{fmt}", response_class=Response, responses=FIGURE_FILES)
def run_figure(
    fmt: figures.FigureFormat,
    run: RunDep,
    session: SessionDep,
    names: Annotated[
        str | None,
        Query(
            pattern=NO_NUL,
            description="Comma-separated round metrics; default: accuracy, loss, x and gap, as "
            "recorded.",
        ),
    ] = None,
    x: XAxis = "round",
    width: figures.Width = "full",
) -> Response:
    """The run's curves, a panel per chart (accuracy, loss, ...), every recorded round
    (thinned to 2000 points a curve), with axis labels and units and a legend."""
    wanted = chosen([n for n in (names or "").split(",") if n], list(run.metric_names))
    unknown = [n for n in wanted if n not in run.metric_names]
    if unknown or not wanted:
        msg = f"{unknown[0]!r} was not recorded by this run" if unknown else "no metric recorded"
        raise RequestValidationError(
            [{"loc": ["query", "names"], "msg": msg, "type": "value_error"}]
        )
    specs = metrics.by_name()
    x_at = {} if x == "round" else dict(zip(*full_series(session, run.id, x), strict=True))
    panels: dict[str, dict[str, figures.Series]] = {}
    members: dict[str, list[MetricSpec]] = {}
    for name in wanted:
        spec = specs.get(name) or MetricSpec(name, name.replace("_", " "))
        rounds, values = full_series(session, run.id, name)
        keep = thin(len(rounds), MAX_POINTS).tolist() if rounds else []
        if x != "round":  # rounds without a value of that x axis have no point
            keep = [i for i in keep if x_at.get(rounds[i]) is not None]
        xs = [float(rounds[i]) if x == "round" else float(x_at[rounds[i]] or 0.0) for i in keep]
        panels.setdefault(spec.panel, {})[name] = (xs, [values[i] for i in keep])
        members.setdefault(spec.panel, []).append(spec)
    axes = {p: panel_axis(p, members[p]) for p in panels}
    labels = {n: (specs[n].label if n in specs else n) for n in wanted}
    try:
        body = figures.run_figure(
            panels, axes, X_LABELS[x], width=width, fmt=fmt, title=f"#{run.id} {run.name}",
            labels=labels,
        )  # fmt: skip
    except figures.Unplottable as err:  # the metrics chosen cannot be drawn
        raise RequestValidationError(
            [{"loc": ["query", "names"], "msg": str(err), "type": "value_error"}]
        ) from None
    return attachment(body, figures.MEDIA_TYPES[fmt], f"run-{run.id}.{fmt}")
