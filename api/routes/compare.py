"""`GET /api/compare`: several runs side by side, grouped, as JSON or as a table file;
`GET /api/compare/figure.{pdf,svg,png}`: their curves as a figure for a paper."""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from fastapi import APIRouter, Query, Response
from fastapi.exceptions import RequestValidationError
from sqlalchemy import select

from api.comparison import RunData, config_diff, table, targets
from api.deps import SessionDep, get_run
from api.files import attachment, file_responses
from api.schemas.compare import ComparePublic
from api.schemas.errors import NOT_FOUND
from api.storable import NO_NUL
from db.metric_values import final_values, full_series
from db.models import Experiment, Run
from worker.engine import LAST_VALUES, MetricSpec, current, metrics, summarise, summary_inputs
from worker.engine.bias import SUMMARY_NAMES as BIAS_NAMES
from worker.ingest import run_bias
from worker.results import figures
from worker.results.curves import (
    UNBOUNDED,
    X_LABELS,
    Domain,
    XAxis,
    clip_note,
    group_curve,
    run_points,
)
from worker.results.grouping import (
    GroupBy,
    Grouping,
    GroupingError,
    RunRecord,
    group_runs,
    parse_labels,
    vocabulary_of,
)
from worker.results.stats import DEFAULT_ALPHA, columns_of
from worker.results.table import MEDIA_TYPES, labelled, render, table_json
from worker.results.tradeoff import tradeoff

router = APIRouter(prefix="/api", tags=["compare"])

# At most 10 digits an id: beyond the 32-bit bound it is a 404 like any unknown id.
RunIds = Annotated[
    str,
    Query(pattern=r"^ *[0-9]{1,10} *(, *[0-9]{1,10} *)*$", description="Comma-separated run ids."),
]
Metric = Annotated[str, Query(pattern=NO_NUL, description="The round metric of the curves.")]
Alpha = Annotated[
    float,
    Query(gt=0, lt=1, description="Significance level of the corrected tests' verdicts."),
]
Columns = Annotated[
    str | None,
    Query(
        pattern=r"^[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*$",
        description="Comma-separated compared summary values, in the table's order (default: "
        "all of them); only these are tested and corrected for.",
    ),
]
Labels = Annotated[
    str | None,
    Query(
        max_length=10_000,
        pattern=NO_NUL,
        description="Groups renamed: comma-separated GROUP:NAME pairs, a group named by its "
        "key, its label or (a sweep's cell) its values, e.g. `fedavg:FedAvg (ours),fedlaavg:"
        "FedLaAvg`; a backslash escapes a comma or a colon (`\\,`). Every answer and file "
        "uses the names.",
    ),
]
Reference = Annotated[
    str | None,
    Query(
        pattern=NO_NUL,
        description="The group the others are tested against (its key, label or values); "
        "default: the preset's proposed method, else the sweep's first method, else the "
        "first group.",
    ),
]
TableFormat = Literal["json", "csv", "md", "tex"]
FIGURE_FILES = file_responses(
    {figures.MEDIA_TYPES[f]: f"a {f} figure" for f in figures.FIGURE_FORMATS}
)
TABLE_FILES = file_responses({MEDIA_TYPES[f]: f"the table as {f}" for f in ("csv", "md", "tex")})


def load(session: SessionDep, run: Run, metric: str, group: str) -> RunData:
    rounds, values = full_series(session, run.id, metric)
    wall_rounds, walls = full_series(session, run.id, "wall_s")
    wall = dict(zip(wall_rounds, walls, strict=True))
    sim_rounds, sims = full_series(session, run.id, "sim_time_s")
    sim = dict(zip(sim_rounds, sims, strict=True))
    # A running run: the summary of its rounds so far; one summarised before some values
    # existed: their last records.
    scores = dict(run.summary) if run.summary else live_summary(session, run)
    if any(name not in scores for name in BIAS_NAMES):  # summarised before they existed
        scores.update({k: v for k, v in run_bias(session, run).items() if k not in scores})
    missing = {key: name for key, name in LAST_VALUES.items() if key not in scores}
    if missing:
        last = final_values(session, run.id, list(missing.values()))
        scores.update({key: last.get(name) for key, name in missing.items()})
    return RunData(
        id=run.id,
        name=run.name,
        group=group,
        rounds=np.asarray(rounds, dtype=np.int64),
        y=np.asarray([np.nan if v is None else v for v in values], dtype=np.float64),
        wall_s=np.asarray([wall.get(r) or 0.0 for r in rounds], dtype=np.float64),
        seed=run.seed,
        scores=scores,
        sim_time_s=np.asarray([sim.get(r) or 0.0 for r in rounds] if sim else [], float),
        config=dict(run.config or {}),
    )


def live_summary(session: SessionDep, run: Run) -> dict[str, float | int | None]:
    """The summary of the rounds a run has recorded so far, computed as the engine's
    (`summarise`), from the series it needs."""
    series = {name: full_series(session, run.id, name) for name in (*summary_inputs(), "wall_s")}
    by_round: dict[int, dict[str, float]] = {}
    for name, (rounds, values) in series.items():
        for t, v in zip(rounds, values, strict=True):
            if v is not None:
                by_round.setdefault(t, {})[name] = v
    ordered = sorted(by_round.items())
    wall = ordered[-1][1].get("wall_s", 0.0) if ordered else 0.0
    target = (run.config.get("eval") or {}).get("target_acc") if run.config else None
    return summarise(
        ordered,
        run.rounds_done,
        wall,
        target,
        period=run.availability_period,
        bias=run_bias(session, run),
    )


def record_of(run: Run, presets: dict[int, str | None]) -> RunRecord:
    return RunRecord(
        id=run.id,
        name=run.name,
        algorithm=run.algorithm,
        seed=run.seed,
        config=dict(run.config or {}),
        created=run.created_at.timestamp(),
        experiment=run.experiment_id,
        cell=run.cell,
        preset=presets.get(run.experiment_id) if run.experiment_id is not None else None,
    )


def invalid(where: str, msg: str) -> RequestValidationError:
    return RequestValidationError([{"loc": ["query", where], "msg": msg, "type": "value_error"}])


def read_groups(
    session: SessionDep,
    runs: str,
    metric: str,
    group_by: GroupBy,
    reference: str | None = None,
    labels: str | None = None,
    names: list[str] | None = None,
) -> tuple[list[RunData], dict[str, list[RunData]], Grouping]:
    """The runs grouped (`worker.results.grouping`), and the kept runs' data by group key."""
    found = [get_run(int(part), session) for part in dict.fromkeys(runs.split(","))]
    experiments = {r.experiment_id for r in found if r.experiment_id is not None}
    query = select(Experiment.id, Experiment.preset).where(Experiment.id.in_(experiments))
    presets: dict[int, str | None] = {e: p for e, p in session.execute(query)}
    try:
        renamed = parse_labels(labels) if labels else None
    except ValueError as err:
        raise invalid("labels", str(err)) from None
    try:
        grouping = group_runs(
            [record_of(r, presets) for r in found],
            vocabulary_of(current()),
            group_by,
            reference,
            renamed,
            names,
        )
    except GroupingError as err:
        raise invalid(err.field, str(err)) from None
    by_id = {r.id: r for r in found}
    groups = {
        g.key: [load(session, by_id[i], metric, g.key) for i in g.runs] for g in grouping.groups
    }
    return [r for rs in groups.values() for r in rs], groups, grouping


def column_names(columns: str | None) -> list[str] | None:
    if columns is None:
        return None
    names = columns.split(",")
    try:
        columns_of(names)
    except ValueError as err:
        raise RequestValidationError(
            [{"loc": ["query", "columns"], "msg": str(err), "type": "value_error"}]
        ) from None
    return names


def domain_of(spec: MetricSpec | None) -> Domain:
    """The metric's domain; a metric the catalogue does not know is unbounded."""
    return spec.domain if spec is not None else UNBOUNDED


@router.get("/compare", response_model=ComparePublic, responses=NOT_FOUND | TABLE_FILES)
def compare(
    session: SessionDep,
    runs: RunIds,
    metric: Metric = "test_acc",
    group_by: GroupBy = "algorithm",
    x: XAxis = "round",
    max_points: Annotated[int, Query(ge=2, le=20_000)] = 500,
    reference: Reference = None,
    alpha: Alpha = DEFAULT_ALPHA,
    columns: Columns = None,
    labels: Labels = None,
    format: Annotated[
        TableFormat,
        Query(description="json (everything), or the summary table as csv, md or tex."),
    ] = "json",
) -> ComparePublic | Response:
    names = column_names(columns)
    data, groups, grouping = read_groups(session, runs, metric, group_by, reference, labels, names)
    result = table(groups, grouping.reference, alpha, grouping.columns)
    notes, label = grouping.table_notes(), grouping.labels
    if format != "json":
        body = render(labelled(result, label), format, targets(groups), notes)
        return attachment(body.encode(), MEDIA_TYPES[format], f"comparison.{format}")
    doc = table_json(result, targets(groups), notes, label)
    diff = config_diff(groups)
    spec = metrics.by_name().get(metric)
    domain = domain_of(spec)
    for row in doc["rows"]:
        row["config"] = diff.values[row["group"]]
        row["config_only"] = diff.only[row["group"]]
    return ComparePublic.model_validate(
        {
            "metric": metric,
            "x": x,
            "runs": [
                {
                    "id": r.id,
                    "name": r.name,
                    "group": r.group,
                    "label": label[r.group],
                    **_xy(*run_points(r, x, max_points)),
                }
                for r in data
            ],
            "groups": [
                {**vars(group_curve(g, rs, x, max_points, domain)), "label": label[g]}
                for g, rs in groups.items()
            ],
            "band_clip": clip_note(domain, spec.scale, spec.unit) if spec else "",
            **{k: v for k, v in doc.items() if k not in ("rows", "tests")},
            "reference_label": grouping.reference_label,
            "reference_why": grouping.why,
            "labels": label,
            "warnings": [{**vars(w), "label": label[w.group]} for w in grouping.warnings],
            "dropped": [i for g in grouping.groups for i in g.dropped],
            "preset": grouping.preset,
            "headline": grouping.headline,
            "columns_left_out": grouping.left_out,
            "table": doc["rows"],
            "tradeoff": vars(trade) if (trade := tradeoff(result)) else None,
            "config_keys": diff.keys,
            "config_partial": diff.partial,
            "ttests": doc["tests"],
        }
    )


def _xy(x: list[float], y: list[float | None]) -> dict[str, list[float] | list[float | None]]:
    return {"x": x, "y": y}


@router.get(
    "/compare/figure.{fmt}",
    response_class=Response,
    responses=NOT_FOUND | FIGURE_FILES,
)
def compare_figure(
    fmt: figures.FigureFormat,
    session: SessionDep,
    runs: RunIds,
    metric: Metric = "test_acc",
    group_by: GroupBy = "algorithm",
    x: XAxis = "round",
    band: Annotated[
        figures.Band, Query(description="± std, the 95 % CI of the mean, or none.")
    ] = "std",
    width: Annotated[
        figures.Width, Query(description="A paper's column (3.5 in) or full width (7 in).")
    ] = "column",
    log: Annotated[bool, Query(description="A logarithmic y axis.")] = False,
    lines: Annotated[bool, Query(description="Each run's curve too, drawn thin.")] = False,
    max_points: Annotated[int, Query(ge=2, le=20_000)] = 2000,
    labels: Labels = None,
) -> Response:
    """The compared runs' curves: each group's mean with its band, axis ticks, labels
    with units and a legend."""
    data, groups, grouping = read_groups(session, runs, metric, group_by, labels=labels)
    label = grouping.labels
    y = figures.Axis.of(metrics.by_name().get(metric), metric, log)
    curves = [
        group_curve(label[g], members, x, max_points, y.domain) for g, members in groups.items()
    ]
    try:
        body = figures.compare_figure(
            curves, y, X_LABELS[x], band=band, width=width, fmt=fmt, runs=data if lines else (), x=x
        )
    except figures.Unplottable as err:  # the metric chosen cannot be drawn
        raise RequestValidationError(
            [{"loc": ["query", "metric"], "msg": str(err), "type": "value_error"}]
        ) from None
    return attachment(body, figures.MEDIA_TYPES[fmt], f"comparison-{metric}.{fmt}")
