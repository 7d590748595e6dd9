"""Presets (named paper setups) and the metric catalogue."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class MethodPublic(BaseModel):
    """One entry of a preset's comparison set."""

    algorithm: str
    set: dict[str, Any] = Field(
        description="Dotted config keys and the values the paper's code ran this method "
        "with (e.g. its learning rates), on top of the preset's config."
    )
    label: str = Field(description="The method's name: its algorithm unless a set holds one twice.")


class ReferencePublic(BaseModel):
    """A value a metric's chart marks with a dashed line."""

    value: float
    label: str


REFERENCES_DESCRIPTION = (
    "Round metric -> the values its chart marks (a limit the paper derives, an optimum)."
)


class PresetPublic(BaseModel):
    name: str
    description: str
    compare: list[str] = Field(description="The algorithms of the comparison set.")
    methods: list[MethodPublic] = Field(description="The comparison set with its settings.")
    seeds: list[int]
    variants: dict[str, list[str]]
    paper: str = Field(description="The publication the preset reproduces.")
    published: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="The figures its source publishes, in %: algorithm -> figure (max, "
        "time_avg, std_second_half, or accuracy: the test accuracy a benchmark's table "
        "gives) -> value.",
    )
    published_text: str = Field(
        "", description="The published figures in a line, as `fedwatch presets` prints them."
    )
    source: str = Field(
        "",
        description="Where the published figures are printed (a repository's file, a "
        "paper's table) and how they were measured, where that is not `paper` itself.",
    )
    differs: str = Field(
        "", description="What of the source's setup the preset's config cannot express."
    )
    needs: str | None = Field(
        description="The data files a run needs and where they must lie (None: generated "
        "or bundled data)."
    )
    references: dict[str, list[ReferencePublic]] = Field(description=REFERENCES_DESCRIPTION)
    headline: list[str] = Field(
        default_factory=list,
        description="The summary values its comparison is about: the first columns of its "
        "tables, shown by default (stragglers: simulated time to the target and dropped "
        "updates).",
    )


class PresetDetail(PresetPublic):
    config: dict[str, Any]


class MetricSpecPublic(BaseModel):
    """One metric of the catalogue (`worker.engine.metrics.MetricSpec`)."""

    name: str
    label: str
    short: str = Field(description="Compact label for table headings; the label when empty.")
    kind: Literal["round", "summary"] = Field(
        description="`round`: recorded in rounds; `summary`: one value per run."
    )
    unit: str
    scale: float = Field(description="Multiplies a value for display (a fraction → %: 100).")
    panel: str = Field(description="The run-page chart of a round metric.")
    better: Literal["higher", "lower"] | None
    summary: bool = Field(description="A round metric averaged into the summary (`<name>_avg`).")
    compare: bool = Field(description="A summary value in the comparison tables.")
    rank: bool = Field(description="A summary value runs can be ranked by (`rank_by`).")
    description: str
    domain: tuple[float | None, float | None] = Field(
        description="The closed range a value can take, before `scale` (null: unbounded on "
        "that side); intervals and figure bands stay inside it."
    )
    machine: bool = Field(
        description="A figure of the machine and its load (wall time, updates/s), not of the "
        "method: shown apart, never tested, never marked best."
    )
    log: bool = Field(description="Its charts and figures default to a log y axis.")


class DatasetStatusPublic(BaseModel):
    """Whether a dataset's files are on this server (`GET /api/datasets/{name}`), so a
    form can say so before a run is started."""

    dataset: str
    from_root: bool = Field(description="Read from the data root (else generated or bundled).")
    present: bool
    missing: list[str] = Field(description="Expected files not under the folder.")
    folder: str | None = Field(description="Where the files must go, relative to the data root.")
    download_allowed: bool = Field(description="Whether this server downloads datasets.")
    advice: str | None = Field(
        description="What to do where files are missing, naming only what this server accepts."
    )
    data_root: str = Field(description="Where this server's data root is (an absolute path).")
    rule: str = Field(description="What `data.root` may be on this server.")
    holding: list[str] = Field(
        description="The `data.root` values whose folders hold the dataset's files (found "
        "a few levels under the data root; empty for a generated or bundled dataset)."
    )


class PanelPublic(BaseModel):
    """A chart of the run page (`worker.engine.metrics.PanelSpec`), in display order."""

    name: str = Field(description="What the round metrics' `panel` names.")
    title: str
    y_title: str
    log: bool = Field(description="A log-scaled y axis.")
    description: str = Field(
        description="One line saying what the chart measures, shown beside it (empty: "
        "its title says it all)."
    )


class StatusPublic(BaseModel):
    """A run status (`db.status`) and what it means."""

    name: str
    description: str
    stored: bool = Field(description="False for `stalled`: shown, never stored.")
    active: bool = Field(description="Queued or executing: it may still record rounds.")
    final: bool
    resumable: bool = Field(description="A simulated run in it can be resumed.")


class XAxisPublic(BaseModel):
    """An x axis of the charts (`worker.results.curves.X_AXES`)."""

    key: str = Field(description="What the API's `x` and the series call it.")
    word: str = Field(description="What a page writes in its own address (`x=wall`).")
    title: str = Field(description="The axis title.")
    option: str = Field(description="Its entry in a page's chooser.")


class ChoicePublic(BaseModel):
    """A value a page offers to pick, with the words it shows for it."""

    name: str
    label: str


class TimelineStatePublic(BaseModel):
    """A state of the client timeline (`db.timeline`), in the order its index counts."""

    name: str
    colour: str = Field(description="The CSS colour a page paints it.")


class MetaPublic(BaseModel):
    """What the browser reads once and spells nowhere itself."""

    statuses: list[StatusPublic] = Field(description="The run statuses, in lifecycle order.")
    x_axes: list[XAxisPublic] = Field(description="The charts' x axes, in chooser order.")
    alpha: float = Field(description="The comparison tables' default significance level.")
    group_by: list[ChoicePublic] = Field(description="How a comparison may group its runs.")
    bands: list[ChoicePublic] = Field(description="The bands a comparison's curves may draw.")
    table_formats: list[ChoicePublic] = Field(description="A comparison table's files.")
    figure_formats: list[ChoicePublic] = Field(description="A figure's files.")
    timeline_states: list[TimelineStatePublic] = Field(
        description="The client timeline's states with their colours, by index."
    )
    default_metrics: dict[str, str] = Field(
        description="Dataset -> the round metric a chart of its runs shows first."
    )
