"""Comparison of runs: aligned series, group mean with ± std and CI bands, the summary
table with its tests (corrected for multiple comparisons), what differs in the configs."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

GROUP = "The group's key: what `group_by` groups by (the algorithm, the experiment cell)."
LABEL = "The group's name in every answer, table and figure (renamed with `labels`)."


class RunSeries(BaseModel):
    id: int
    name: str
    group: str = Field(description=GROUP)
    label: str = Field("", description=LABEL)
    x: list[float]
    y: list[float | None]


class GroupSeries(BaseModel):
    name: str = Field(description=GROUP)
    label: str = Field("", description=LABEL)
    run_ids: list[int] = Field(
        description="The runs the curve is over: those that recorded the metric so far."
    )
    waiting: list[int] = Field(
        default_factory=list, description="The group's runs that have not recorded it yet."
    )
    x: list[float]
    mean: list[float | None] = Field(
        description="The runs' mean at each x; null where it is past the float range (as "
        "std and the interval's ends)."
    )
    std: list[float | None] = Field(description="Sample std across the group's runs at each x.")
    std_low: list[float | None] = Field(
        description="The ± std band's lower end at each x: mean − std, clipped to the "
        "metric's domain (`band_clip`)."
    )
    std_high: list[float | None] = Field(description="mean + std, clipped the same way.")
    ci_low: list[float | None] = Field(
        description="95 % t-interval of the mean at each x (the mean itself for one run), "
        "clipped to the metric's domain."
    )
    ci_high: list[float | None]


class Stat(BaseModel):
    mean: float | None
    std: float | None = Field(description="Sample standard deviation; null below 2 values.")
    n: int = Field(description="Runs of the group that have the value.")
    ci_low: float | None = Field(
        None,
        description="95 % confidence interval of the mean, inside the value's domain "
        "(`/api/metrics/catalog`); null below 2 values, or where they are `identical`.",
    )
    ci_high: float | None = None
    interval: Literal["t", "logit t", "log t", "bootstrap"] | None = Field(
        None,
        description="How the CI was drawn: below 5 values a t-interval on the logit scale "
        "(a domain bounded on both sides), the log scale (one side) or as it is (none); "
        "from 5 on, the percentile bootstrap.",
    )
    identical: bool = Field(
        False, description="2 values or more, the same up to float rounding: no CI, std 0."
    )
    text: str | None = Field(
        None, description="Mean ± std as every table writes it, in the catalogue's unit."
    )
    ci_text: str | None = Field(None, description="The CI as text, in the same style.")
    ci_note: str | None = Field(
        None, description='What stands in for the CI: "identical across seeds".'
    )


class TableRow(BaseModel):
    group: str = Field(description=GROUP)
    label: str = Field("", description=LABEL)
    n: int
    seeds: list[int]
    stats: dict[str, Stat] = Field(description="Per compared summary value (`columns`).")
    config: dict[str, list[Any]] = Field(
        default_factory=dict,
        description="Per key of `config_keys` that the group's runs have: their distinct "
        "values (a parameter of a component they did not use is left out).",
    )
    config_only: dict[str, list[Any]] = Field(
        default_factory=dict,
        description="Per key of `config_partial` that the group's runs have: their distinct "
        "values (a field other compared runs lack).",
    )


class TTest(BaseModel):
    """The group against the reference on one metric."""

    group: str
    reference: str
    metric: str
    test: Literal["paired t", "Welch t"] | None = Field(
        description="Paired t-test where at least 3 seeds pair the runs, Welch's unpaired "
        "t-test where they do not pair (3 runs a group at least); null: no test (`reason`)."
    )
    n_pairs: int = Field(description="Seeds both groups have the value for.")
    n_group: int
    n_reference: int
    p_value: float | None = Field(description="The test's two-sided p, uncorrected.")
    p_adjusted: float | None = Field(
        description="Holm–Bonferroni adjusted p, over every test of the table."
    )
    p_text: str
    p_adjusted_text: str
    diff_text: str = Field(description="`mean_diff` and its CI as text, in the metric's unit.")
    mean_diff: float | None = Field(description="Mean of (group − reference).")
    ci_low: float | None = Field(description="95 % confidence interval of `mean_diff`.")
    ci_high: float | None
    effect_size: float | None = Field(
        description="Paired: Cohen's d_z (mean_diff / std of the differences); Welch: "
        "Cohen's d (over the pooled std)."
    )
    direction: Literal["better", "worse", "equal"] | None = Field(
        description="The sign of the difference by the metric's direction in the catalogue, "
        "significant or not."
    )
    verdict: Literal["better", "worse", "n.s."] | None = Field(
        description="better or worse where the adjusted p is at most `alpha`, else n.s.; "
        "null without a test."
    )
    reason: str | None = Field(description="Why there is no test.")
    degenerate: Literal["identical", "constant"] | None = Field(
        None,
        description="No test because nothing varies: the values are the same (identical), "
        "or differ by a constant (`mean_diff`; `ci_low`, `ci_high`: the differences' range).",
    )


class GroupWarningPublic(BaseModel):
    """Something a reader must know about a group."""

    kind: Literal["duplicate_seed", "mixed_configs"] = Field(
        description="duplicate_seed: a seed ran more than once in the group; the newest run "
        "was kept and the others dropped (`runs`). mixed_configs: the group's runs differ in "
        "more than their name and seed (`keys`)."
    )
    group: str = Field(description=GROUP)
    label: str = Field(description=LABEL)
    message: str = Field(description="The warning in words, as the table's caption says it.")
    runs: list[int] = Field(description="The dropped runs, or the group's mixed runs.")
    keys: list[str] = Field(description="The dotted config keys that differ (mixed_configs).")


class TradeOffPublic(BaseModel):
    """The privacy trade-off chart: one point per group at the means of two summary
    values, with their CIs (`table`'s statistics)."""

    values: list[str] = Field(
        description="The summary values it can plot: those (not the machine's) that at least "
        "two groups record, in the table's order."
    )
    epsilon: list[str] = Field(description="Those of `values` in ε.")
    x: str = Field(description="The x plotted first: the worst client's ε where recorded.")
    y: str = Field(
        description="The y plotted first: the headline accuracy (the table's first ranked "
        "value not in ε)."
    )
    assumed: str | None = Field(
        description="The assumed ε (Poisson at K/N), drawn at each group's y beside its point; "
        "null where fewer than two groups record it."
    )


class ComparePublic(BaseModel):
    metric: str
    x: str
    runs: list[RunSeries]
    groups: list[GroupSeries]
    band_clip: str = Field(
        "",
        description="How the groups' bands are kept inside the metric's domain, in its "
        'display unit ("clipped to [0, 100] %"); empty for an unbounded metric.',
    )
    columns: list[str] = Field(
        description="The compared summary values, in catalogue order (`/api/metrics/catalog`)."
    )
    machine: list[str] = Field(
        default_factory=list,
        description="The columns that are figures of the machine and its load (wall time, "
        "updates/s): shown apart, never tested, never best.",
    )
    headings: dict[str, str] = Field(
        description="Each column's heading with its unit, as every export writes it "
        "(rounds→target names its target accuracy)."
    )
    reference: str | None = Field(description="The reference group's key.")
    reference_label: str | None = Field(None, description="The reference group's label.")
    reference_why: Literal["explicit", "preset", "sweep", "first"] | None = Field(
        None,
        description="Why it is the reference: asked for, the preset's proposed method, the "
        "sweep's first method, or the first group.",
    )
    labels: dict[str, str] = Field(
        default_factory=dict, description="Each group's label, by its key (in group order)."
    )
    warnings: list[GroupWarningPublic] = Field(
        default_factory=list, description="Duplicate seeds dropped, and groups of mixed configs."
    )
    dropped: list[int] = Field(
        default_factory=list,
        description="Runs left out: a seed's older runs where its group has a newer one.",
    )
    preset: str | None = Field(None, description="The paper preset every compared run is of.")
    headline: list[str] = Field(
        default_factory=list,
        description="The preset's headline values: the table's first columns, shown by default.",
    )
    columns_left_out: list[str] = Field(
        default_factory=list,
        description="Values counted in rounds, left out where synchronous and asynchronous "
        "methods are compared (a server update is not a round); the caption says so.",
    )
    alpha: float = Field(description="The significance level of the verdicts.")
    correction: Literal["holm"] = "holm"
    n_tests: int = Field(description="Tests the correction is over.")
    caption: str = Field(description="What the table shows, as the exports' caption.")
    table: list[TableRow]
    tradeoff: TradeOffPublic | None = Field(
        None,
        description="The privacy trade-off's values and defaults; null where fewer than two "
        "groups record an ε value.",
    )
    config_keys: list[str] = Field(
        default_factory=list,
        description="Dotted config keys whose value differs between the compared runs "
        "(their name and seed aside), in config order, each run's config holding the "
        "parameters of the components it used only (not every algorithm's); each row's "
        "`config` has the values of those its runs have.",
    )
    config_partial: list[str] = Field(
        default_factory=list,
        description="Dotted config keys some compared runs have and others lack (a simulated "
        "run's config against an external run's own); each row's `config_only` has those "
        "its runs have.",
    )
    ttests: list[TTest] = Field(
        description="Each non-reference group on each compared value with a direction."
    )
