"""Statistics of a comparison across seeds: the one module behind every comparison table
(`fedwatch compare`, `GET /api/compare`, the exports and the SDK's DataFrame).

Columns are the catalogue's compared summary values (`metrics.compared()`), in its order.
Each group gets, per value, mean ± sample std and a 95 % confidence interval of the mean
(a t-interval below `BOOTSTRAP_FROM` runs, a percentile bootstrap from there on). Every
group but the reference is tested against it on each value that has a `better`
direction:
- runs that pair by seed (at least `MIN_PAIRS` seeds in common) get a paired t-test;
- runs that do not pair get Welch's unpaired t-test, with at least `MIN_PAIRS` runs a
  side;
- otherwise there is no test, and `reason` says why.
The p-values of one table are corrected together for multiple comparisons (Holm–
Bonferroni); a difference is "better" or "worse" only where the corrected p is at most
α, and "n.s." otherwise.

scipy loads when a test or an interval is first computed: the CLI reads this module's
constants at start-up.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from worker.engine import metrics
from worker.engine.metrics import MetricSpec

Direction = Literal["better", "worse", "equal"]
Verdict = Literal["better", "worse", "n.s."]
TestKind = Literal["paired t", "Welch t"]
Interval = Literal["t", "bootstrap"]

DEFAULT_ALPHA = 0.05
CONFIDENCE = 0.95
MIN_PAIRS = 3
BOOTSTRAP_FROM = 5
BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 0  # the same runs give the same interval


@dataclass(frozen=True)
class Sample:
    """One run of a group: its seed and its summary values."""

    seed: int
    values: Mapping[str, float | int | None]


@dataclass(frozen=True)
class Stat:
    """Mean, sample standard deviation (None below two values) and the 95 % confidence
    interval of the mean (None below two values; `interval` says how it was drawn) of
    `n` values."""

    mean: float | None
    std: float | None
    n: int
    ci_low: float | None = None
    ci_high: float | None = None
    interval: Interval | None = None


@dataclass(frozen=True)
class GroupTest:
    """A group against the reference on one metric. `test`: which test ran (None: none
    could, `reason` says why); `n_pairs`: seeds both groups have the value for. The mean
    difference (group − reference), its 95 % confidence interval and the effect size
    (paired: Cohen's d_z, the mean difference over the std of the differences; Welch:
    Cohen's d over the pooled std). `p_value` is the test's own, `p_adjusted` the
    Holm-corrected one over every test of the table. `direction` is the sign of the
    difference by the metric's direction; `verdict` says whether it is significant."""

    group: str
    reference: str
    metric: str
    test: TestKind | None
    n_pairs: int
    n_group: int
    n_reference: int
    mean_diff: float | None
    ci_low: float | None
    ci_high: float | None
    effect_size: float | None
    p_value: float | None
    p_adjusted: float | None
    direction: Direction | None
    verdict: Verdict | None
    reason: str | None


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
    tests: list[GroupTest]
    alpha: float = DEFAULT_ALPHA

    @property
    def n_tests(self) -> int:
        """How many tests the correction is over."""
        return sum(t.p_value is not None for t in self.tests)


def finite(values: Sequence[float | int | None]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(v)]


def mean_std(values: Sequence[float | int | None]) -> Stat:
    """Mean, std and 95 % CI of the finite values, whatever their size (a bound past
    the float range is None: JSON holds no infinity)."""
    got = finite(values)
    if not got:
        return Stat(None, None, 0)
    mean = scaled_mean(got)
    if len(got) < 2:
        return Stat(mean, None, 1)
    low, high, interval = mean_interval(got)
    std = _bound(scaled_std(got, ddof=1))
    return Stat(mean, std, len(got), _bound(low), _bound(high), interval)


def mean_interval(values: Sequence[float]) -> tuple[float, float, Interval]:
    """The 95 % confidence interval of the mean of two or more values: Student's t below
    `BOOTSTRAP_FROM` values, the percentile bootstrap from there on; computed on the
    values scaled as `scaled_mean`, so a bound past the float range is infinite."""
    exponent = _exponent(values)
    x = np.ldexp(np.asarray(values, dtype=np.float64), -exponent)
    n = len(x)
    if n < BOOTSTRAP_FROM:
        half = t_quantile(n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
        mean = float(x.mean())
        low, high = mean - half, mean + half
        interval: Interval = "t"
    else:
        rng = np.random.default_rng(BOOTSTRAP_SEED)
        means = x[rng.integers(0, n, size=(BOOTSTRAP_RESAMPLES, n))].mean(axis=1)
        tail = 100 * (1 - CONFIDENCE) / 2
        low, high = (float(b) for b in np.percentile(means, [tail, 100 - tail]))
        interval = "bootstrap"
    with np.errstate(over="ignore"):  # a bound past the float range is inf
        return float(np.ldexp(low, exponent)), float(np.ldexp(high, exponent)), interval


def scaled_mean(values: Sequence[float]) -> float:
    """The mean of finite floats, whatever their size: computed on the values scaled by a
    power of two below their largest magnitude (exact), so no sum overflows; for values
    whose sum fits, the same float as `fsum(values) / n`."""
    exponent = _exponent(values)
    return math.ldexp(math.fsum(math.ldexp(v, -exponent) for v in values) / len(values), exponent)


def scaled_std(values: Sequence[float], ddof: int = 0) -> float:
    """The std (population, or sample with `ddof=1`) of finite floats, scaled as
    `scaled_mean` so that neither the squares nor their sum overflow; inf where the std
    itself is past the float range."""
    exponent = _exponent(values)
    scaled = [math.ldexp(v, -exponent) for v in values]
    mean = math.fsum(scaled) / len(scaled)
    spread = math.sqrt(math.fsum((v - mean) ** 2 for v in scaled) / (len(scaled) - ddof))
    with np.errstate(over="ignore"):  # past the float range: inf, not an error
        return float(np.ldexp(spread, exponent))


def _exponent(values: Sequence[float]) -> int:
    return math.frexp(max(abs(v) for v in values))[1]


def _bound(value: float) -> float | None:
    return value if math.isfinite(value) else None


def t_quantile(df: float) -> float:
    """The two-sided 95 % quantile of Student's t with `df` degrees of freedom."""
    from scipy import stats

    return float(stats.t.ppf(1 - (1 - CONFIDENCE) / 2, df))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the order given: the i-th smallest of m
    is multiplied by (m − i + 1), and the adjusted values are made non-decreasing in
    that order (capped at 1)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


@dataclass(frozen=True)
class WelchTest:
    """Two independent samples (e.g. FedWatch's runs against the reference code's): the
    mean difference a − b and the two-sided p-value of Welch's t-test (None with fewer
    than two values on a side, or no spread at all)."""

    mean_diff: float | None
    p_value: float | None


def welch_test(a: Sequence[float], b: Sequence[float]) -> WelchTest:
    from scipy import stats

    if not a or not b:
        return WelchTest(None, None)
    diff = float(np.mean(a) - np.mean(b))
    if len(a) < 2 or len(b) < 2:
        return WelchTest(diff, None)
    return WelchTest(diff, _p(stats.ttest_ind(a, b, equal_var=False).pvalue))


def _p(value: float) -> float | None:
    p = float(value)
    return p if math.isfinite(p) else None


@dataclass(frozen=True)
class _Outcome:
    """A test before the table's correction."""

    test: TestKind | None
    n_pairs: int
    mean_diff: float | None
    ci: tuple[float, float] | None
    effect: float | None
    p: float | None
    reason: str | None


def group_test(
    spec: MetricSpec, group: str, mine: list[Sample], reference: str, theirs: list[Sample]
) -> GroupTest:
    """`spec` of `mine` against `theirs`, before correction (`p_adjusted` and `verdict`
    are set by `compare`); a seed's first run in each group is its pair."""
    a, b = _by_seed(mine, spec.name), _by_seed(theirs, spec.name)
    pairs = [(x, b[seed]) for seed, x in a.items() if seed in b]
    if len(pairs) >= MIN_PAIRS:
        outcome = _paired(pairs)
    elif set(a) == set(b) and a:
        need = f"a paired t-test needs at least {MIN_PAIRS}"
        outcome = _none(len(pairs), f"{_count(len(pairs), 'pair')} by seed: {need}")
    elif len(a) >= MIN_PAIRS and len(b) >= MIN_PAIRS:
        outcome = _welch(list(a.values()), list(b.values()), len(pairs))
    else:
        why = (
            f"runs do not pair by seed ({_count(len(pairs), 'pair')}), and Welch's t-test "
            f"needs at least {MIN_PAIRS} runs a group ({len(a)} and {len(b)})"
        )
        outcome = _none(len(pairs), why if a and b else "no values to test")
    diff = outcome.mean_diff
    return GroupTest(
        group,
        reference,
        spec.name,
        outcome.test,
        outcome.n_pairs,
        len(a),
        len(b),
        diff,
        outcome.ci[0] if outcome.ci else None,
        outcome.ci[1] if outcome.ci else None,
        outcome.effect,
        outcome.p,
        None,
        None if diff is None else _direction(spec, diff),
        None,
        outcome.reason,
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _none(n_pairs: int, reason: str) -> _Outcome:
    return _Outcome(None, n_pairs, None, None, None, None, reason)


def _paired(pairs: list[tuple[float, float]]) -> _Outcome:
    from scipy import stats

    diffs = np.array([x - y for x, y in pairs], dtype=np.float64)
    mean, sd, n = float(diffs.mean()), float(diffs.std(ddof=1)), len(diffs)
    half = t_quantile(n - 1) * sd / math.sqrt(n)
    if sd == 0 and mean == 0:
        return _none(n, "the values are identical in every pair")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # no spread: t is infinite
        p = _p(stats.ttest_rel([x for x, _ in pairs], [y for _, y in pairs]).pvalue)
    effect = mean / sd if sd > 0 else None
    return _Outcome("paired t", n, mean, (mean - half, mean + half), effect, p, None)


def _welch(a: list[float], b: list[float], n_pairs: int) -> _Outcome:
    from scipy import stats

    xa, xb = np.asarray(a), np.asarray(b)
    mean = float(xa.mean() - xb.mean())
    va, vb = float(xa.var(ddof=1)) / len(xa), float(xb.var(ddof=1)) / len(xb)
    if va + vb == 0:
        if mean == 0:
            return _none(n_pairs, "the values are identical in both groups")
        return _Outcome("Welch t", n_pairs, mean, (mean, mean), None, 0.0, None)
    df = (va + vb) ** 2 / (va**2 / (len(xa) - 1) + vb**2 / (len(xb) - 1))
    half = t_quantile(df) * math.sqrt(va + vb)
    pooled = math.sqrt((float(xa.var(ddof=1)) + float(xb.var(ddof=1))) / 2)
    p = _p(stats.ttest_ind(xa, xb, equal_var=False).pvalue)
    effect = mean / pooled if pooled > 0 else None
    return _Outcome("Welch t", n_pairs, mean, (mean - half, mean + half), effect, p, None)


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


def corrected(tests: list[GroupTest], alpha: float) -> list[GroupTest]:
    """The tests with their Holm-adjusted p-values and verdicts."""
    tested = [i for i, t in enumerate(tests) if t.p_value is not None]
    adjusted = dict(zip(tested, holm([tests[i].p_value or 0.0 for i in tested]), strict=True))
    out = []
    for i, t in enumerate(tests):
        p = adjusted.get(i)
        verdict: Verdict | None = None
        if p is not None:
            verdict = "n.s."
            if p <= alpha and t.direction == "better":
                verdict = "better"
            elif p <= alpha and t.direction == "worse":
                verdict = "worse"
        out.append(replace(t, p_adjusted=p, verdict=verdict))
    return out


def columns_of(names: Sequence[str] | None = None) -> list[MetricSpec]:
    """The compared values named (in that order), or all of them in catalogue order;
    ValueError names one that is not compared."""
    compared = {c.name: c for c in metrics.compared()}
    if names is None:
        return list(compared.values())
    unknown = [n for n in names if n not in compared]
    if unknown:
        raise ValueError(
            f"{unknown[0]!r} is not a compared summary value (one of {', '.join(compared)})"
        )
    return [compared[n] for n in dict.fromkeys(names)]


def compare(
    groups: Mapping[str, list[Sample]],
    reference: str | None,
    alpha: float = DEFAULT_ALPHA,
    names: Sequence[str] | None = None,
) -> Table:
    """The comparison table of `groups` (in their order) on the compared values `names`
    (all by default); tests against `reference`, when it is one of them, corrected
    together at level `alpha`."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha: {alpha} is not in (0, 1)")
    columns = columns_of(names)
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
                    group_test(c, name, samples, reference, groups[reference]) for c in tested
                ]
    return Table(columns, reference, rows, corrected(tests, alpha), alpha)
