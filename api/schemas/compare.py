"""Comparison of runs: aligned series, group mean ± std, summary table, paired t-tests."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class RunSeries(BaseModel):
    id: int
    name: str
    group: str
    x: list[float]
    y: list[float | None]


class GroupSeries(BaseModel):
    name: str
    run_ids: list[int]
    x: list[float]
    mean: list[float]
    std: list[float]


class Stat(BaseModel):
    mean: float | None
    std: float | None = Field(description="Sample standard deviation; null below 2 values.")
    n: int = Field(description="Runs of the group that have the value.")


class TableRow(BaseModel):
    group: str
    n: int
    seeds: list[int]
    stats: dict[str, Stat] = Field(description="Per compared summary value (`columns`).")
    config: dict[str, list[Any]] = Field(
        default_factory=dict,
        description="Per key of `config_keys`: the distinct values the group's runs have "
        "(null for a run whose config lacks the key).",
    )


class TTest(BaseModel):
    """The group against the reference on one metric, runs paired by seed."""

    group: str
    reference: str
    metric: str
    n_pairs: int
    p_value: float | None = Field(description="Two-sided paired t-test; null below 2 pairs.")
    mean_diff: float | None = Field(description="Mean of (group − reference).")
    ci_low: float | None = Field(description="95 % confidence interval of `mean_diff`.")
    ci_high: float | None
    effect_size: float | None = Field(description="Cohen's d_z: mean_diff / std of the diffs.")
    direction: Literal["better", "worse", "equal"] | None = Field(
        description="Whether the group's mean is better than the reference's, by the "
        "metric's direction in the catalogue."
    )


class ComparePublic(BaseModel):
    metric: str
    x: str
    runs: list[RunSeries]
    groups: list[GroupSeries]
    columns: list[str] = Field(
        description="The compared summary values, in catalogue order (`/api/metrics/catalog`)."
    )
    table: list[TableRow]
    config_keys: list[str] = Field(
        default_factory=list,
        description="Dotted config keys whose value differs between the compared runs "
        "(their name and seed aside), in config order; each row's `config` has their values.",
    )
    ttests: list[TTest] = Field(
        description="Each non-reference group on each compared value with a direction."
    )
