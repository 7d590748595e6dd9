"""Comparison of runs: aligned series, group mean ± std, summary table, paired t-tests."""

from __future__ import annotations

from pydantic import BaseModel


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
    std: float | None


class TableRow(BaseModel):
    group: str
    n: int
    best_test_acc: Stat
    final_test_acc: Stat
    time_avg_test_acc: Stat
    std_test_acc_second_half: Stat
    rounds_to_target: Stat
    client_acc_worst10: Stat
    client_acc_best10: Stat


class TTest(BaseModel):
    group: str
    reference: str
    metric: str
    p_value: float | None
    n_pairs: int


class ComparePublic(BaseModel):
    metric: str
    x: str
    runs: list[RunSeries]
    groups: list[GroupSeries]
    table: list[TableRow]
    ttests: list[TTest]
