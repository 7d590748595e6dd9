"""Statistics of a comparison across seeds: the one module behind the CLI table
(`fedwatch compare`) and the API's (`GET /api/compare`).

Columns are the catalogue's compared summary values (`metrics.compared()`), in its order;
each group gets mean ± sample std of each, and every group but the reference a paired
t-test (runs paired by seed) on each compared value that has a `better` direction.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from worker.engine import metrics
from worker.engine.metrics import MetricSpec

Direction = Literal["better", "worse", "equal"]


@dataclass(frozen=True)
class Sample:
    """One run of a group: its seed and its summary values."""

    seed: int
    values: Mapping[str, float | int | None]


@dataclass(frozen=True)
class Stat:
    """Mean and sample standard deviation (None below two values) of `n` values."""

    mean: float | None
    std: float | None
    n: int


@dataclass(frozen=True)
class PairedTest:
    """A group against the reference on one metric, runs paired by seed: the mean of
    (group − reference), its 95 % confidence interval, Cohen's d_z (mean difference over
    the standard deviation of the differences), the two-sided p-value, and whether the
    group is better by the metric's direction."""

    group: str
    reference: str
    metric: str
    n_pairs: int
    mean_diff: float | None
    ci_low: float | None
    ci_high: float | None
    effect_size: float | None
    p_value: float | None
    direction: Direction | None


@dataclass(frozen=True)
class Row:
    group: str
    n: int
    seeds: list[int]
    stats: dict[str, Stat]


@dataclass(frozen=True)
class Table:
    columns: list[MetricSpec]
    reference: str | None
    rows: list[Row]
    tests: list[PairedTest]


def mean_std(values: Sequence[float | int | None]) -> Stat:
    got = [float(v) for v in values if v is not None and math.isfinite(v)]
    if not got:
        return Stat(None, None, 0)
    std = float(np.std(got, ddof=1)) if len(got) > 1 else None
    return Stat(float(np.mean(got)), std, len(got))


def paired_p(a: Sequence[float | None], b: Sequence[float | None]) -> float | None:
    """Two-sided paired t-test p-value of `a` against `b` (aligned by seed); None without
    two complete pairs, or when the differences have no spread (the test is undefined)."""
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    if len(pairs) < 2:
        return None
    xs, ys = zip(*pairs, strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # near-identical samples
        p = float(stats.ttest_rel(xs, ys).pvalue)
    return p if math.isfinite(p) else None


@dataclass(frozen=True)
class WelchTest:
    """Two independent samples (e.g. FedWatch's runs against the reference code's): the
    mean difference a − b and the two-sided p-value of Welch's t-test (None with fewer
    than two values on a side, or no spread at all)."""

    mean_diff: float | None
    p_value: float | None


def welch_test(a: Sequence[float], b: Sequence[float]) -> WelchTest:
    if not a or not b:
        return WelchTest(None, None)
    diff = float(np.mean(a) - np.mean(b))
    if len(a) < 2 or len(b) < 2:
        return WelchTest(diff, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # no spread: p is NaN
        p = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
    return WelchTest(diff, p if math.isfinite(p) else None)


def paired_test(
    spec: MetricSpec, group: str, mine: list[Sample], reference: str, theirs: list[Sample]
) -> PairedTest:
    """`spec` of `mine` against `theirs`; a seed's first run in each group is its pair."""
    ref = _by_seed(theirs, spec.name)
    pairs = [
        (a, b) for seed, a in _by_seed(mine, spec.name).items() if (b := ref.get(seed)) is not None
    ]
    empty = PairedTest(group, reference, spec.name, len(pairs), None, None, None, None, None, None)
    if not pairs:
        return empty
    diffs = np.array([a - b for a, b in pairs], dtype=np.float64)
    mean = float(diffs.mean())
    low = high = effect = None
    if len(diffs) > 1:
        sd = float(diffs.std(ddof=1))
        half = float(stats.t.ppf(0.975, len(diffs) - 1)) * sd / math.sqrt(len(diffs))
        low, high = mean - half, mean + half
        effect = mean / sd if sd > 0 else None
    p = paired_p([a for a, _ in pairs], [b for _, b in pairs])
    return PairedTest(
        group, reference, spec.name, len(pairs), mean, low, high, effect, p, _direction(spec, mean)
    )


def _by_seed(samples: list[Sample], name: str) -> dict[int, float]:
    out: dict[int, float] = {}
    for s in samples:
        value = s.values.get(name)
        if s.seed not in out and value is not None and math.isfinite(value):
            out[s.seed] = float(value)
    return out


def _direction(spec: MetricSpec, mean_diff: float) -> Direction:
    if mean_diff == 0:
        return "equal"
    higher = mean_diff > 0
    return "better" if higher == (spec.better == "higher") else "worse"


def compare(groups: Mapping[str, list[Sample]], reference: str | None) -> Table:
    """The comparison table of `groups` (in their order); t-tests against `reference`,
    when it is one of them."""
    columns = metrics.compared()
    rows = [
        Row(
            name,
            len(samples),
            [s.seed for s in samples],
            {c.name: mean_std([s.values.get(c.name) for s in samples]) for c in columns},
        )
        for name, samples in groups.items()
    ]
    tests = []
    if reference is not None and reference in groups:
        tested = [c for c in columns if c.better is not None]
        for name, samples in groups.items():
            if name != reference:
                tests += [
                    paired_test(c, name, samples, reference, groups[reference]) for c in tested
                ]
    return Table(columns, reference, rows, tests)
