"""Statistics of a comparison across seeds: the one module behind every comparison table
(`fedwatch compare`, `GET /api/compare`, the exports and the SDK's DataFrame).

Columns are the catalogue's compared summary values (`metrics.compared()`), in its order.
Each group gets, per value, mean ± sample std and a 95 % confidence interval of the mean
that stays inside the value's declared domain (`MetricSpec.domain`, `mean_interval`):
below `BOOTSTRAP_FROM` runs, where a percentile bootstrap is unreliable, a t-interval on
the logit scale (a domain bounded on both sides) or the log scale (one side), from there
on a percentile bootstrap. Values identical across a group's seeds (up to float
rounding, `same`) get no interval: `Stat.identical`.

Every group but the reference is tested against it on each value that has a `better`
direction and is not a figure of the machine (`MetricSpec.machine`: wall time,
updates/s, never tested):
- runs that pair by seed (at least `MIN_PAIRS` seeds in common) get a paired t-test;
- runs that do not pair get Welch's unpaired t-test, with at least `MIN_PAIRS` runs a
  side;
- otherwise there is no test, and `reason` says why; in particular where the paired
  differences do not vary, or neither group varies (a deterministic run): the difference
  is reported, and its interval is the range of the differences (`GroupTest.degenerate`).
The p-values of one table are corrected together for multiple comparisons (Holm–
Bonferroni); a difference is "better" or "worse" only where the corrected p is at most
α, and "n.s." otherwise.

scipy loads when a test or an interval is first computed: the CLI reads this module's
constants at start-up.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from worker.engine import MetricSpec, binary_exponent, metrics, scaled_mean, scaled_std

Direction = Literal["better", "worse", "equal"]
Verdict = Literal["better", "worse", "n.s."]
TestKind = Literal["paired t", "Welch t"]
Interval = Literal["t", "logit t", "log t", "bootstrap"]
Degenerate = Literal["identical", "constant"]
Domain = tuple[float | None, float | None]

DEFAULT_ALPHA = 0.05
CONFIDENCE = 0.95
MIN_PAIRS = 3
BOOTSTRAP_FROM = 5
BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 0  # the same runs give the same interval
SAME_WITHIN = 1e-12
"""Values whose spread is at most this share of their largest magnitude are the same:
they differ only by float rounding (a sum taken in another order)."""
UNBOUNDED: Domain = (None, None)

INTERVALS: dict[Interval, str] = {
    "t": "a t-interval",
    "logit t": "a t-interval on the logit scale",
    "log t": "a t-interval on the log scale",
    "bootstrap": "a percentile bootstrap (10 000 resamples)",
}
"""Each way of drawing the confidence interval of a mean, in words (`mean_interval`;
the tables' captions)."""
IDENTICAL = "identical across seeds"


@dataclass(frozen=True)
class Sample:
    """One run of a group: its seed (None: unknown, it pairs with no run) and its
    summary values."""

    seed: int | None
    values: Mapping[str, float | int | None]


@dataclass(frozen=True)
class Stat:
    """Mean, sample standard deviation (None below two values) and the 95 % confidence
    interval of the mean (None below two values, or where the values are `identical`;
    `interval` says how it was drawn) of `n` values. `identical`: two values or more,
    the same up to float rounding (`same`); their std is 0."""

    mean: float | None
    std: float | None
    n: int
    ci_low: float | None = None
    ci_high: float | None = None
    interval: Interval | None = None
    identical: bool = False


@dataclass(frozen=True)
class GroupTest:
    """A group against the reference on one metric. `test`: which test ran (None: none
    could, `reason` says why); `n_pairs`: seeds both groups have the value for. The mean
    difference (group − reference), its 95 % confidence interval and the effect size
    (paired: Cohen's d_z, the mean difference over the std of the differences; Welch:
    Cohen's d over the pooled std). `p_value` is the test's own, `p_adjusted` the
    Holm-corrected one over every test of the table. `direction` is the sign of the
    difference by the metric's direction; `verdict` says whether it is significant.
    `degenerate`: no test because nothing varies: "identical" (the values are the same
    in every pair, or in both groups), or "constant" (they differ by a constant:
    `mean_diff`, its interval the range of the differences)."""

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
    degenerate: Degenerate | None = None


@dataclass(frozen=True)
class Row:
    """A group's row: its runs' count, their seeds (ascending, whatever order the runs
    came in) and a `Stat` per compared value."""

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


def mean_std(values: Sequence[float | int | None], domain: Domain = UNBOUNDED) -> Stat:
    """Mean, std and 95 % CI (inside `domain`, `mean_interval`) of the finite values,
    whatever their size (a bound past the float range is None: JSON holds no infinity);
    no CI where two values or more are the same (`identical`)."""
    got = finite(values)
    if not got:
        return Stat(None, None, 0)
    mean = scaled_mean(got)
    if len(got) < 2:
        return Stat(mean, None, 1)
    if same(got):  # a std of float rounding's noise is 0
        return Stat(mean, 0.0, len(got), identical=True)
    std = _bound(scaled_std(got, ddof=1))
    low, high, interval = mean_interval(got, domain)
    return Stat(mean, std, len(got), _bound(low), _bound(high), interval)


def same(values: Sequence[float], of: Sequence[float] = ()) -> bool:
    """Whether finite `values` are the same up to float rounding: their spread is at most
    `SAME_WITHIN` of the largest magnitude of `of` (of the values themselves by default;
    the two runs of each pair for paired differences). All zero is the same; scaled as
    `scaled_mean`, so that no difference overflows."""
    sizes = list(of) or list(values)
    exponent = binary_exponent(sizes)
    x = [math.ldexp(v, -exponent) for v in values]
    return max(x) - min(x) <= SAME_WITHIN * max(abs(math.ldexp(v, -exponent)) for v in sizes)


def mean_interval(
    values: Sequence[float], domain: Domain = UNBOUNDED
) -> tuple[float, float, Interval]:
    """The 95 % confidence interval of the mean of two or more values that vary, inside
    `domain` (the closed range a value can take; None: unbounded on that side).

    From `BOOTSTRAP_FROM` values, the percentile bootstrap (resampled means stay within
    the values' range, so within the domain). Below, where a bootstrap is unreliable,
    Student's t-interval on a scale where the domain has no bound, mapped back: the
    mean's logit within a domain bounded on both sides, the log of its distance to the
    bound with one, the mean itself without any. The half-width on that scale is the
    t-interval's times the scale's slope at the mean (the delta method): the interval
    holds the mean, is the t-interval to first order away from the bounds, and narrows
    on the side of a near bound. Values exactly on a bound enter the mean and std as
    they are: only the mean is transformed, and it is on a bound only where every value
    is (then they are the same: no interval). Where the mean is not inside the domain
    (values that break it), the plain t-interval. Computed on the values scaled as
    `scaled_mean`, so a bound past the float range is infinite."""
    exponent = binary_exponent(values)
    x = np.ldexp(np.asarray(values, dtype=np.float64), -exponent)
    n = len(x)
    if n >= BOOTSTRAP_FROM:
        rng = np.random.default_rng(BOOTSTRAP_SEED)
        means = x[rng.integers(0, n, size=(BOOTSTRAP_RESAMPLES, n))].mean(axis=1)
        tail = 100 * (1 - CONFIDENCE) / 2
        low, high = (float(b) for b in np.percentile(means, [tail, 100 - tail]))
        return _unscaled(low, high, exponent, "bootstrap")
    mean = float(x.mean())
    half = t_quantile(n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    lo, hi = (None if b is None else math.ldexp(b, -exponent) for b in domain)
    inside = (lo is None or mean > lo) and (hi is None or mean < hi)
    with np.errstate(over="ignore"):  # a bound past the float range is inf
        if inside and lo is not None and hi is not None:
            u = (mean - lo) / (hi - lo)
            centre, step = math.log(u / (1 - u)), half / ((hi - lo) * u * (1 - u))
            ends = [lo + (hi - lo) / (1 + float(np.exp(step - centre))),
                    lo + (hi - lo) / (1 + float(np.exp(-step - centre)))]  # fmt: skip
            return _unscaled(ends[0], ends[1], exponent, "logit t")
        bound = lo if lo is not None else hi
        if inside and bound is not None:  # one bound: the log of the distance to it
            sign = 1.0 if lo is not None else -1.0
            gap = sign * (mean - bound)
            ends = sorted(bound + sign * gap * float(np.exp(k * half / gap)) for k in (-1, 1))
            return _unscaled(ends[0], ends[1], exponent, "log t")
    return _unscaled(mean - half, mean + half, exponent, "t")


def _unscaled(
    low: float, high: float, exponent: int, kind: Interval
) -> tuple[float, float, Interval]:
    with np.errstate(over="ignore"):  # a bound past the float range is inf
        return float(np.ldexp(low, exponent)), float(np.ldexp(high, exponent)), kind


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
    if not a or not b:
        return WelchTest(None, None)
    diff = float(np.mean(a) - np.mean(b))
    if len(a) < 2 or len(b) < 2 or (same(a) and same(b)):
        return WelchTest(diff, None)
    return WelchTest(diff, _welch_t(a, b)[3])


def _welch_t(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float, float | None]:
    """Welch's t on two samples that do not both lack spread: the mean difference a − b,
    its standard error, the degrees of freedom (Welch–Satterthwaite) and the two-sided p
    (computed here: scipy's warns where one side has no spread, a valid case)."""
    from scipy import stats

    xa, xb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    va, vb = float(xa.var(ddof=1)) / len(xa), float(xb.var(ddof=1)) / len(xb)
    mean, se = float(xa.mean() - xb.mean()), math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(xa) - 1) + vb**2 / (len(xb) - 1))
    return mean, se, df, _p(2 * stats.t.sf(abs(mean) / se, df))


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
    degenerate: Degenerate | None = None


def group_test(
    spec: MetricSpec, group: str, mine: list[Sample], reference: str, theirs: list[Sample]
) -> GroupTest:
    """`spec` of `mine` against `theirs`, before correction (`p_adjusted` and `verdict`
    are set by `compare`); a seed's first run in each group is its pair."""
    a, b = _by_seed(mine, spec.name), _by_seed(theirs, spec.name)
    pairs = [(x, b[seed]) for seed, x in a.items() if seed in b]
    if len(pairs) >= MIN_PAIRS:
        outcome = _paired(pairs, spec.domain)
    elif set(a) == set(b) and a:
        need = f"a paired t-test needs at least {MIN_PAIRS}"
        outcome = _none(len(pairs), f"{_count(len(pairs), 'pair')} by seed: {need}")
    elif len(a) >= MIN_PAIRS and len(b) >= MIN_PAIRS:
        outcome = _welch(list(a.values()), list(b.values()), len(pairs), spec.domain)
    else:
        why = (
            f"runs do not pair by seed ({_count(len(pairs), 'pair')}), and Welch's t-test "
            f"needs at least {MIN_PAIRS} runs a group ({len(a)} and {len(b)})"
        )
        outcome = _none(len(pairs), why if a and b else "no values to test")
    diff = outcome.mean_diff
    direction = None if diff is None else _direction(spec, diff)
    if outcome.degenerate == "identical":
        direction = "equal"
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
        direction,
        None,
        outcome.reason,
        outcome.degenerate,
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _none(n_pairs: int, reason: str) -> _Outcome:
    return _Outcome(None, n_pairs, None, None, None, None, reason)


def _paired(pairs: list[tuple[float, float]], domain: Domain) -> _Outcome:
    from scipy import stats

    diffs = np.array([x - y for x, y in pairs], dtype=np.float64)
    n = len(diffs)
    if same(list(diffs), [v for pair in pairs for v in pair]):
        why = "the values are identical in every pair"
        const = "deterministic: the values differ by a constant in every pair"
        values = [v for pair in pairs for v in pair]
        ends = (float(diffs.min()), float(diffs.max()))
        return _degenerate(n, scaled_mean(list(diffs)), ends, values, why, const)
    mean, sd = float(diffs.mean()), float(diffs.std(ddof=1))
    half = t_quantile(n - 1) * sd / math.sqrt(n)
    p = _p(stats.ttest_rel([x for x, _ in pairs], [y for _, y in pairs]).pvalue)
    ci = _within(mean - half, mean + half, domain)
    return _Outcome("paired t", n, mean, ci, mean / sd, p, None)


def _welch(a: list[float], b: list[float], n_pairs: int, domain: Domain) -> _Outcome:
    if same(a) and same(b):
        why = f"{IDENTICAL} in both groups, and the same in both"
        const = f"deterministic: each group is {IDENTICAL}, and they differ by a constant"
        ends = (min(a) - max(b), max(a) - min(b))
        return _degenerate(n_pairs, scaled_mean(a) - scaled_mean(b), ends, a + b, why, const)
    mean, se, df, p = _welch_t(a, b)
    half = t_quantile(df) * se
    pooled = math.sqrt((float(np.var(a, ddof=1)) + float(np.var(b, ddof=1))) / 2)
    ci = _within(mean - half, mean + half, domain)
    return _Outcome("Welch t", n_pairs, mean, ci, mean / pooled, p, None)


def _degenerate(
    n_pairs: int,
    mean: float,
    ends: tuple[float, float],
    values: list[float],
    identical: str,
    constant: str,
) -> _Outcome:
    """No test where nothing varies: the `values` the same (`identical`: a difference of
    0) or apart by a constant (`constant`: `mean`); the interval is the range of the
    differences (`ends`)."""
    if same([*ends, 0.0], values):
        return _Outcome(None, n_pairs, 0.0, (0.0, 0.0), None, None, identical, "identical")
    return _Outcome(None, n_pairs, mean, ends, None, None, constant, "constant")


def _within(low: float, high: float, domain: Domain) -> tuple[float, float]:
    """A difference's interval inside the range a difference of two means can take: ±
    the domain's width, where it is bounded on both sides."""
    lo, hi = domain
    if lo is None or hi is None:
        return low, high
    return max(low, lo - hi), min(high, hi - lo)


def _by_seed(samples: list[Sample], name: str) -> dict[object, float]:
    """The value of each seed's first run; a run without a seed is a key of its own, in
    no other group."""
    out: dict[object, float] = {}
    for s in samples:
        value = s.values.get(name)
        key = object() if s.seed is None else s.seed
        if key not in out and value is not None and math.isfinite(value):
            out[key] = float(value)
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
    together at level `alpha`, on the values with a direction that are not figures of
    the machine."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha: {alpha} is not in (0, 1)")
    columns = columns_of(names)
    rows = [
        Row(
            name,
            len(samples),
            sorted(s.seed for s in samples if s.seed is not None),
            {c.name: mean_std([s.values.get(c.name) for s in samples], c.domain) for c in columns},
        )
        for name, samples in groups.items()
    ]
    tests = []
    if reference is not None and reference in groups:
        tested = [c for c in columns if c.better is not None and not c.machine]
        for name, samples in groups.items():
            if name != reference:
                tests += [
                    group_test(c, name, samples, reference, groups[reference]) for c in tested
                ]
    return Table(columns, reference, rows, corrected(tests, alpha), alpha)
