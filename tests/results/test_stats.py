"""The comparison statistics shared by the CLI, the API and the exports, by hand.

With 3 pairs the paired t-test has 2 degrees of freedom, where Student's t has a closed
form: the two-sided p of a statistic t is 1 − |t| / √(t² + 2).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from worker.engine import metrics
from worker.results.stats import (
    Sample,
    compare,
    group_test,
    holm,
    mean_interval,
    mean_std,
    same,
    welch_test,
)

SPECS = metrics.by_name()
T975_DF2 = 4.302653  # Student's t, 97.5 % quantile, 2 degrees of freedom


def p_df2(diffs: list[float]) -> float:
    """The paired t-test's p on 3 differences, by the closed form above."""
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    t = mean / (sd / math.sqrt(n))
    return 1 - abs(t) / math.sqrt(t * t + 2)


def test_mean_std_and_t_interval() -> None:
    s = mean_std([0.4, None, 0.6, float("nan")])

    assert (s.mean, s.n, s.interval) == (pytest.approx(0.5), 2, "t")
    assert s.std == pytest.approx(math.sqrt(0.02))  # √((0.1² + 0.1²) / (2 − 1))
    half = 12.706205 * math.sqrt(0.02) / math.sqrt(2)  # t₀.₉₇₅(1) = 12.706205
    assert (s.ci_low, s.ci_high) == (pytest.approx(0.5 - half), pytest.approx(0.5 + half))
    assert mean_std([0.3]).std is None and mean_std([0.3]).ci_low is None
    assert mean_std([None]).mean is None


def test_bootstrap_interval_from_five_runs() -> None:
    values = [0.70, 0.72, 0.71, 0.90, 0.69]

    low, high, kind = mean_interval(values)

    assert kind == "bootstrap"
    # The percentile interval of resampled means lies within the sample's range, around
    # the mean (0.744), and is the same on every call (a fixed generator).
    assert 0.69 <= low < 0.744 < high <= 0.90
    assert mean_interval(values) == (low, high, kind)
    rng = np.random.default_rng(0)
    means = np.asarray(values)[rng.integers(0, 5, size=(10_000, 5))].mean(axis=1)
    assert (low, high) == tuple(np.percentile(means, [2.5, 97.5]))
    assert mean_interval(values[:4])[2] == "t"


def test_holm_by_hand() -> None:
    # sorted: 0.005 × 6 = 0.03, 0.01 × 5 = 0.05, 0.02 × 4 = 0.08, 0.03 × 3 = 0.09,
    # 0.04 × 2 = 0.08 → 0.09 (non-decreasing), 0.5 × 1 = 0.5
    adjusted = holm([0.01, 0.04, 0.03, 0.005, 0.5, 0.02])

    assert adjusted == pytest.approx([0.05, 0.09, 0.09, 0.03, 0.5, 0.08])
    assert holm([0.6, 0.7]) == pytest.approx([1.0, 1.0])  # capped at 1


def test_table_of_three_baselines_and_two_metrics_corrected_by_holm() -> None:
    seeds = (0, 1, 2)
    ref_best, ref_final = (0.50, 0.60, 0.70), (0.40, 0.50, 0.60)
    # Differences from the reference on (best, final), per baseline and seed.
    diffs = {
        "a": ((0.10, 0.11, 0.12), (0.05, 0.06, 0.04)),
        "b": ((0.01, -0.02, 0.02), (-0.030, -0.031, -0.029)),
        "c": ((0.02, 0.00, 0.03), (0.10, -0.10, 0.05)),
    }
    groups = {"ref": [Sample(s, {"best_test_acc": b, "final_test_acc": f})
                      for s, b, f in zip(seeds, ref_best, ref_final, strict=True)]}  # fmt: skip
    for name, (db, df) in diffs.items():
        groups[name] = [
            Sample(s, {"best_test_acc": b + x, "final_test_acc": f + y})
            for s, b, f, x, y in zip(seeds, ref_best, ref_final, db, df, strict=True)
        ]

    table = compare(groups, "ref", alpha=0.05)

    ran = {(t.group, t.metric): t for t in table.tests if t.test is not None}
    assert set(ran) == {(g, m) for g in diffs for m in ("best_test_acc", "final_test_acc")}
    raw = {(g, m): p_df2(list(diffs[g][i])) for g in diffs
           for i, m in enumerate(("best_test_acc", "final_test_acc"))}  # fmt: skip
    for key, t in ran.items():
        assert (t.test, t.n_pairs) == ("paired t", 3)
        assert t.p_value == pytest.approx(raw[key], rel=1e-6)
    # Holm by hand over the 6 raw p-values
    order = sorted(raw, key=raw.__getitem__)
    expected, running = {}, 0.0
    for rank, key in enumerate(order):
        running = max(running, min(1.0, (6 - rank) * raw[key]))
        expected[key] = running
    assert table.n_tests == 6
    for key, t in ran.items():
        assert t.p_adjusted == pytest.approx(expected[key], rel=1e-6)
    # raw p: b final 0.00037 (t = −52.0), a best 0.0027 (t = 19.1), a final 0.013
    # (t = 8.66), c best 0.20, b best and c final 0.81 (t = 0.277). Holm: × 6, 5, 4, 3,
    # 2, 1 → 0.0022, 0.014, 0.052, 0.60, 1, 1.
    assert expected[("b", "final_test_acc")] == pytest.approx(6 * 0.00037016, rel=1e-4)
    assert expected[("a", "final_test_acc")] == pytest.approx(4 * 0.01307246, rel=1e-5)
    assert ran[("b", "final_test_acc")].verdict == "worse"
    assert ran[("a", "best_test_acc")].verdict == "better"
    # a's final is significant on its own (p = 0.013 < 0.05) but not once corrected
    assert ran[("a", "final_test_acc")].p_value < 0.05  # type: ignore[operator]
    assert ran[("a", "final_test_acc")].verdict == "n.s."
    # not significant: "n.s.", whatever the sign of the difference
    assert ran[("b", "best_test_acc")].direction == "better"
    assert {ran[(g, m)].verdict for g, m in [("b", "best_test_acc"), ("c", "best_test_acc"),
            ("c", "final_test_acc")]} == {"n.s."}  # fmt: skip


def test_fewer_than_three_pairs_is_no_test() -> None:
    group = [Sample(0, {"wall_s": 3.0}), Sample(1, {"wall_s": 5.0})]
    reference = [Sample(0, {"wall_s": 2.0}), Sample(1, {"wall_s": 2.0})]

    t = group_test(SPECS["wall_s"], "a", group, "b", reference)

    assert (t.test, t.p_value, t.n_pairs, t.verdict) == (None, None, 2, None)
    assert t.reason == "2 pairs by seed: a paired t-test needs at least 3"
    table = compare({"b": reference, "a": group}, "b")
    assert table.n_tests == 0 and all(t.verdict is None for t in table.tests)


def test_runs_that_do_not_pair_get_welch() -> None:
    group = [Sample(s, {"best_test_acc": v}) for s, v in ((5, 0.60), (6, 0.64), (7, 0.62))]
    reference = [Sample(s, {"best_test_acc": v}) for s, v in ((0, 0.50), (1, 0.52), (2, 0.54))]

    t = group_test(SPECS["best_test_acc"], "a", group, "b", reference)

    # equal variances 0.0004 each: se = √(2 · 0.0004 / 3), t = 0.10 / se, df = 4
    se = math.sqrt(2 * 0.0004 / 3)
    assert (t.test, t.n_pairs, t.n_group, t.n_reference) == ("Welch t", 0, 3, 3)
    assert t.mean_diff == pytest.approx(0.10)
    half = 2.776445 * se  # t₀.₉₇₅(4)
    assert (t.ci_low, t.ci_high) == (
        pytest.approx(0.10 - half, rel=1e-5),
        pytest.approx(0.10 + half, rel=1e-5),
    )
    t_stat = 0.10 / se  # two-sided p with 4 df: 1 − I, by scipy's incomplete beta
    from scipy.special import betainc

    assert t.p_value == pytest.approx(betainc(2, 0.5, 4 / (4 + t_stat**2)), rel=1e-6)
    assert t.effect_size == pytest.approx(0.10 / 0.02)  # Cohen's d, pooled std 0.02
    few = group_test(SPECS["best_test_acc"], "a", group[:2], "b", reference)
    assert few.test is None and few.reason is not None and "Welch" in few.reason


def test_identical_values_are_not_tested() -> None:
    same = [Sample(s, {"final_param": 0.5, "final_opt_gap": 0.25}) for s in (0, 1, 2)]

    table = compare({"x": same, "y": same}, "x")

    gap = next(t for t in table.tests if t.metric == "final_opt_gap")
    assert gap.test is None and gap.reason == "the values are identical in every pair"
    assert (gap.degenerate, gap.mean_diff, gap.direction, gap.p_value) == (
        "identical",
        0.0,
        "equal",
        None,
    )


def test_alpha_must_be_a_level() -> None:
    with pytest.raises(ValueError, match="alpha"):
        compare({}, None, alpha=1.5)


def test_table_columns_follow_the_catalogue() -> None:
    groups = {
        "ref": [Sample(0, {"best_test_acc": 0.5}), Sample(1, {"best_test_acc": 0.6})],
        "other": [Sample(0, {"best_test_acc": 0.7}), Sample(1, {"best_test_acc": 0.7})],
    }

    table = compare(groups, "ref")

    assert table.columns == metrics.compared()
    assert [r.group for r in table.rows] == ["ref", "other"]
    assert table.rows[1].stats["best_test_acc"].mean == pytest.approx(0.7)
    tested = [c.name for c in metrics.compared() if c.better and not c.machine]
    assert [t.metric for t in table.tests] == tested and {t.group for t in table.tests} == {"other"}
    assert compare(groups, None).tests == []


def test_values_at_the_ends_of_the_float_range_give_statistics_not_errors() -> None:
    # Before: an OverflowError in the mean's fsum (a 500 of /api/compare).
    top = 1.7976931348623157e308
    s = mean_std([top, -top])
    # mean 0; the std (√2 · top) and the interval's ends are past the float range: None
    assert (s.mean, s.std, s.ci_low, s.ci_high, s.n) == (0.0, None, None, None, 2)
    assert mean_std([top, top, top]).mean == top
    tiny = mean_std([5e-324, 5e-324, 1e-323])
    assert tiny.mean == 5e-324 and tiny.std == 5e-324  # subnormals, rounded as floats


def test_identical_seeds_give_no_test_and_the_constant_difference() -> None:
    # Example 1 is deterministic: its 3 seeds give bit-identical runs. Before: a paired
    # t-test on the constant differences, p = 0.0 and "better · Holm p < 0.001".
    fedavg = [Sample(s, {"final_test_acc": 0.75, "final_opt_gap": 0.25}) for s in (0, 1, 2)]
    fedlaavg = [Sample(s, {"final_test_acc": 0.70, "final_opt_gap": 0.25}) for s in (0, 1, 2)]

    table = compare({"FedAvg": fedavg, "FedLaAvg": fedlaavg}, "FedAvg")

    acc = next(t for t in table.tests if t.metric == "final_test_acc")
    assert (acc.test, acc.p_value, acc.p_adjusted, acc.verdict) == (None, None, None, None)
    assert acc.reason == "deterministic: the values differ by a constant in every pair"
    assert acc.degenerate == "constant" and acc.direction == "worse"
    assert acc.mean_diff == pytest.approx(-0.05) and acc.n_pairs == 3
    assert (acc.ci_low, acc.ci_high) == (0.70 - 0.75, 0.70 - 0.75)  # the differences' range
    gap = next(t for t in table.tests if t.metric == "final_opt_gap")
    assert gap.degenerate == "identical" and gap.mean_diff == 0.0
    assert table.n_tests == 0
    row = table.rows[0].stats["final_test_acc"]
    assert (row.mean, row.std, row.identical, row.ci_low, row.ci_high) == (
        0.75,
        0.0,
        True,
        None,
        None,
    )


def test_a_constant_difference_up_to_float_rounding_is_not_tested() -> None:
    # The group's values vary, the paired differences are 0.1 up to rounding
    # (0.2 − 0.1, 0.3 − 0.2, 0.4 − 0.3 are three different floats): before, t ≈ 1e15.
    ref = [Sample(s, {"best_test_acc": v}) for s, v in ((0, 0.1), (1, 0.2), (2, 0.3))]
    up = [Sample(s, {"best_test_acc": v}) for s, v in ((0, 0.2), (1, 0.3), (2, 0.4))]
    diffs = [0.2 - 0.1, 0.3 - 0.2, 0.4 - 0.3]
    assert len(set(diffs)) == 3

    t = group_test(SPECS["best_test_acc"], "up", up, "ref", ref)

    assert (t.test, t.p_value) == (None, None)
    assert (t.degenerate, t.direction) == ("constant", "better")
    assert t.mean_diff == pytest.approx(0.1, rel=1e-12)
    assert (t.ci_low, t.ci_high) == (min(diffs), max(diffs))
    assert mean_std([0.1, 0.2, 0.3]).identical is False


def test_welch_without_spread_is_no_test() -> None:
    # Runs that do not pair, each group the same in every run: before, p = 0.0.
    a = [Sample(s, {"rounds_to_target": 12.0}) for s in (5, 6, 7)]
    b = [Sample(s, {"rounds_to_target": 15.0}) for s in (0, 1, 2)]

    t = group_test(SPECS["rounds_to_target"], "a", a, "b", b)

    assert (t.test, t.p_value) == (None, None)
    assert (t.degenerate, t.mean_diff) == ("constant", -3.0)
    assert t.reason == (
        "deterministic: each group is identical across seeds, and they differ by a constant"
    )
    same_value = group_test(SPECS["rounds_to_target"], "a", a, "c", a)
    assert same_value.degenerate == "identical" and same_value.direction == "equal"
    flat = welch_test([0.5, 0.5, 0.5], [0.7, 0.7, 0.7])
    assert (flat.mean_diff, flat.p_value) == (pytest.approx(-0.2), None)
    assert welch_test([0.5, 0.6, 0.5], [0.7, 0.7, 0.7]).p_value is not None


def test_same_up_to_float_rounding() -> None:
    assert same([1.0, 1.0 + 2e-16, 1.0 - 2e-16])
    assert not same([1.0, 1.0 + 1e-9])
    assert same([0.0, 0.0]) and not same([0.0, 1e-300])
    # a difference is the same relative to the values it is taken from
    assert same([1e-17, 0.0], [0.5, 0.5]) and not same([1e-17, 0.0])
    assert same([1.7976931348623157e308, 1.7976931348623157e308])


def logit_interval(values: list[float], t: float) -> tuple[float, float]:
    """The t-interval on the logit scale by the delta method, as written out in the
    manual: logit(m) ± t · s / √n / (m (1 − m)), mapped back."""
    n = len(values)
    m = sum(values) / n
    s = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    step = t * s / math.sqrt(n) / (m * (1 - m))
    centre = math.log(m / (1 - m))
    return 1 / (1 + math.exp(-(centre - step))), 1 / (1 + math.exp(-(centre + step)))


def test_accuracy_near_100_percent_keeps_its_interval_below_100() -> None:
    # Before: [98.2, 101.1] % (the plain t-interval, 0.99667 ± 0.01434).
    values = [0.99, 1.0, 1.0]
    groups = {"a": [Sample(s, {"best_test_acc": v}) for s, v in enumerate(values)]}

    s = compare(groups, None, names=["best_test_acc"]).rows[0].stats["best_test_acc"]

    # m = 0.996667, s = 0.0057735, t·s/√3 = 0.014342; on the logit scale
    # ln(299) ± 0.014342 / (0.996667 · 0.003333) = 5.7004 ± 4.3169 → [0.79954, 0.99996]
    low, high = logit_interval(values, T975_DF2)
    assert (s.ci_low, s.ci_high, s.interval) == (pytest.approx(low), pytest.approx(high), "logit t")
    assert (low, high) == (pytest.approx(0.79954, abs=1e-5), pytest.approx(0.999955, abs=1e-6))
    assert 0.0 <= s.ci_low < s.mean < s.ci_high <= 1.0  # type: ignore[operator]


def test_times_near_zero_keep_their_interval_above_zero() -> None:
    # Before: [−0.048, 0.448] s. On the log scale: ln 0.2 ± t·0.1/√3 / 0.2, mapped back.
    values = [0.1, 0.2, 0.3]
    groups = {"a": [Sample(s, {"time_to_target_s": v}) for s, v in enumerate(values)]}

    s = compare(groups, None, names=["time_to_target_s"]).rows[0].stats["time_to_target_s"]

    step = T975_DF2 * 0.1 / math.sqrt(3) / 0.2  # 1.24207
    assert s.interval == "log t"
    assert s.ci_low == pytest.approx(0.2 * math.exp(-step))  # 0.05775
    assert s.ci_high == pytest.approx(0.2 * math.exp(step))  # 0.69262
    assert 0.0 < s.ci_low < 0.2 < s.ci_high  # type: ignore[operator]


def test_bounded_intervals_in_their_degenerate_cases() -> None:
    unit = (0.0, 1.0)
    one = mean_std([0.98], unit)
    assert (one.mean, one.std, one.ci_low, one.interval) == (0.98, None, None, None)
    on_bound = mean_std([1.0, 1.0, 1.0], unit)  # the mean on its bound: every value is
    assert on_bound.identical and on_bound.ci_low is None and on_bound.interval is None
    # values on a bound enter the mean and std as they are: only the mean is transformed
    zeros = mean_std([0.0, 0.0, 0.3], (0.0, None))
    step = T975_DF2 * math.sqrt(0.03) / math.sqrt(3) / 0.1  # s = √0.03
    assert (zeros.ci_low, zeros.ci_high) == (
        pytest.approx(0.1 * math.exp(-step)),
        pytest.approx(0.1 * math.exp(step)),
    )
    # a domain bounded on both sides that is not [0, 1]: the client variance's [0, 0.25]
    var = mean_std([0.20, 0.25, 0.24], (0.0, 0.25))
    low, high = logit_interval([0.80, 1.0, 0.96], T975_DF2)  # the values over 0.25
    assert (var.ci_low, var.ci_high) == (pytest.approx(0.25 * low), pytest.approx(0.25 * high))
    # bounded above only: the log of the distance to the bound, mirrored
    below = mean_std([-0.1, -0.2, -0.3], (None, 0.0))
    step = T975_DF2 * 0.1 / math.sqrt(3) / 0.2
    assert (below.ci_low, below.ci_high, below.interval) == (
        pytest.approx(-0.2 * math.exp(step)),
        pytest.approx(-0.2 * math.exp(-step)),
        "log t",
    )
    # unbounded: the plain t-interval; values that break their domain: the same
    assert mean_std([0.4, 0.6]).interval == "t"
    assert mean_std([1.2, 1.4], unit).interval == "t"
    # from 5 runs, the bootstrap stays within the values' range, so within the domain
    boot = mean_std([0.97, 1.0, 1.0, 1.0, 0.99], unit)
    assert boot.interval == "bootstrap" and 0.97 <= boot.ci_low <= boot.ci_high <= 1.0  # type: ignore[operator]


def test_huge_bounded_values_keep_their_scaled_interval() -> None:
    top = 1.5e308
    s = mean_std([1e308, top], (0.0, None))

    # m = 1.25e308, s / √2 = 2.5e307, t(1) = 12.706205: on the log scale the step is
    # 12.706205 · 2.5e307 / 1.25e308 (the product itself is past the float range)
    step = 12.706205 * 0.2
    assert s.mean == pytest.approx(1.25e308) and s.interval == "log t"
    assert s.ci_low == pytest.approx(1.25e308 * math.exp(-step), rel=1e-6)
    assert s.ci_high is None  # past the float range


def test_a_difference_interval_stays_within_the_range_of_differences() -> None:
    # accuracy differences lie in [−1, 1]; before: [−1.64, 2.27]
    ref = [Sample(s, {"final_test_acc": v}) for s, v in ((0, 0.05), (1, 0.95), (2, 0.0))]
    up = [Sample(s, {"final_test_acc": v}) for s, v in ((0, 0.95), (1, 0.05), (2, 0.95))]

    t = group_test(SPECS["final_test_acc"], "up", up, "ref", ref)

    assert t.test == "paired t" and (t.ci_low, t.ci_high) == (-1.0, 1.0)
    assert t.mean_diff == pytest.approx((0.9 - 0.9 + 0.95) / 3)


def test_figures_of_the_machine_are_never_tested() -> None:
    ref = [Sample(s, {"wall_s": 1.0 + s, "client_updates_per_s": 10.0 + s}) for s in (0, 1, 2)]
    slow = [Sample(s, {"wall_s": 9.0 + 2 * s, "client_updates_per_s": 1.0 + s}) for s in (0, 1, 2)]

    table = compare({"ref": ref, "slow": slow}, "ref", names=["wall_s", "client_updates_per_s"])

    assert table.tests == [] and table.n_tests == 0
    assert table.rows[1].stats["wall_s"].mean == pytest.approx(11.0)  # still shown
