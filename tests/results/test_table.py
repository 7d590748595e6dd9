"""A comparison table written out: LaTeX structure, CSV back to the same numbers,
Markdown and the caption."""

from __future__ import annotations

import csv
import io
import re

import pytest

from worker.engine import metrics
from worker.engine.stats import Sample, Table, compare
from worker.results.table import caption, columns, latex, latex_escape, markdown, to_csv

SEEDS = (0, 1, 2)
BEST = {"ref_method": (0.50, 0.60, 0.70), "a_b": (0.61, 0.71, 0.82), "c#2": (0.52, 0.58, 0.71)}


def table() -> Table:
    groups = {
        name: [
            Sample(s, {"best_test_acc": v, "rounds_to_target": 40.0 + i + s})
            for s, v in zip(SEEDS, values, strict=True)
        ]
        for i, (name, values) in enumerate(BEST.items())
    }
    return compare(groups, "ref_method", names=["best_test_acc", "rounds_to_target"])


def balanced(tex: str) -> bool:
    depth = 0
    for ch in re.sub(r"\\[{}]", "", tex):  # escaped braces are text
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def test_latex_table_structure() -> None:
    tex = latex(table(), targets=[0.6])

    assert balanced(tex)
    assert tex.count(r"\begin{tabular}{lrr}") == 1 and r"\end{tabular}" in tex
    assert [tex.index(rule) for rule in (r"\toprule", r"\midrule", r"\bottomrule")] == sorted(
        tex.index(rule) for rule in (r"\toprule", r"\midrule", r"\bottomrule")
    )
    body = tex.split("\\midrule\n")[1].split("\\bottomrule")[0].strip().splitlines()
    assert len(body) == 3  # one row a group
    assert [line.split(" & ")[0] for line in body] == [
        r"ref\_method (reference)",
        r"a\_b",
        r"c\#2",
    ]
    assert all(line.count(" & ") == 2 and line.endswith(r"\\") for line in body)
    # a_b has the best mean accuracy (71.33 %); ref the fewest rounds to target (41)
    assert r"$\mathbf{71 \pm 11}$" in body[1]
    assert r"$\mathbf{41.0 \pm 1.0}$" in body[0]
    assert r"Method & best acc (\%) & rounds$\rightarrow$60 \% \\" in tex
    assert r"\caption{Mean $\pm$ sample std over 3 runs a group (seeds 0, 1, 2)" in tex


def test_significant_cells_carry_the_marker() -> None:
    t = table()
    tested = {(x.group, x.metric): x.verdict for x in t.tests}

    tex, md = latex(t), markdown(t)

    # rounds→target: +1 and +2 rounds in every pair (no spread): p = 0 → significant
    assert tested[("a_b", "rounds_to_target")] == "worse"
    row = next(line for line in tex.splitlines() if line.startswith(r"a\_b"))
    assert row.endswith(r"$42.0 \pm 1.0$$^\dagger$ \\")
    assert "| a_b | **71 ± 11**† | 42.0 ± 1.0† |" in md  # +11, +11, +12 points: better
    assert tested[("c#2", "best_test_acc")] == "n.s."


def test_csv_parses_back_to_the_same_numbers() -> None:
    t = table()

    rows = list(csv.DictReader(io.StringIO(to_csv(t))))

    assert [r["group"] for r in rows] == list(BEST)
    spec = metrics.by_name()["best_test_acc"]
    tests = {(x.group, x.metric): x for x in t.tests}
    for row, group in zip(rows, t.rows, strict=True):
        stat = group.stats["best_test_acc"]
        assert float(row["best_test_acc[%].mean"]) == stat.mean * spec.scale  # type: ignore[operator]
        assert float(row["best_test_acc[%].std"]) == stat.std * spec.scale  # type: ignore[operator]
        assert float(row["best_test_acc[%].ci_low"]) == stat.ci_low * 100  # type: ignore[operator]
        assert int(row["best_test_acc[%].n"]) == 3 and row["seeds"] == "0 1 2"
        assert float(row["rounds_to_target[rounds].mean"]) == group.stats["rounds_to_target"].mean
        test = tests.get((group.group, "best_test_acc"))
        if test is None:
            assert row["best_test_acc[%].p"] == "" and row["reference"] == "True"
        else:
            assert float(row["best_test_acc[%].p"]) == test.p_value
            assert float(row["best_test_acc[%].p_holm"]) == test.p_adjusted
            assert row["best_test_acc[%].verdict"] == test.verdict


def test_caption_states_seeds_test_correction_and_alpha() -> None:
    text = caption(table(), [0.6])

    assert "over 3 runs a group (seeds 0, 1, 2)" in text
    assert "paired t-tests (runs paired by seed), Holm–Bonferroni corrected over 4 tests" in text
    assert "α = 0.05" in text
    assert "rounds→60 %: rounds until the test accuracy first reached 60 %." in text


def test_columns_without_values_are_left_out() -> None:
    t = compare({"x": [Sample(0, {"best_test_acc": 0.5})]}, None)

    assert [c.spec.name for c in columns(t)] == ["best_test_acc"]


@pytest.mark.parametrize(
    ("raw", "tex"),
    [
        ("a_b & 50%", r"a\_b \& 50\%"),
        ("x̄ last period", r"$\bar{x}$ last period"),
        ("(x − x*)²", r"(x $-$ x*)$^2$"),
        ("{#}", r"\{\#\}"),
    ],
)
def test_latex_escape(raw: str, tex: str) -> None:
    assert latex_escape(raw) == tex
