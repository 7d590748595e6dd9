"""A comparison table written out: LaTeX structure, CSV back to the same numbers,
Markdown and the caption."""

from __future__ import annotations

import csv
import io
import re

import pytest

from worker.engine import metrics
from worker.results.stats import Sample, Table, compare
from worker.results.table import (
    caption,
    columns,
    latex,
    latex_escape,
    markdown,
    table_json,
    text,
    to_csv,
)

SEEDS = (0, 1, 2)
BEST = {"ref_method": (0.50, 0.60, 0.70), "a_b": (0.61, 0.71, 0.82), "c#2": (0.52, 0.58, 0.71)}


def table() -> Table:
    """Rounds to the target: ref 40, 41, 42; a_b one round more in every pair, c#2 two:
    constant differences."""
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

    # rounds→target: +1 and +2 rounds in every pair (no spread): no test, no mark (before:
    # p = 0, significant)
    assert tested[("a_b", "rounds_to_target")] is None
    row = next(line for line in tex.splitlines() if line.startswith(r"a\_b"))
    assert row.endswith(r"$42.0 \pm 1.0$ \\")
    assert "| a_b | **71 ± 11**† | 42.0 ± 1.0 |" in md  # +11, +11, +12 points: better
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
    said = caption(table(), [0.6])

    assert "over 3 runs a group (seeds 0, 1, 2)" in said
    assert "paired t-tests (runs paired by seed), Holm–Bonferroni corrected over 2 tests" in said
    assert "α = 0.05" in said
    assert "rounds→60 %: rounds until the test accuracy first reached 60 %." in said
    # the constant differences, in words
    assert (
        "a_b − ref_method is the same in every pair of seeds on rounds→60 %: no test; the "
        "difference (a_b − ref_method) is the constant rounds→60 % +1 rounds." in said
    )
    assert (
        "95 % CI of the mean: a t-interval on the logit scale (best acc (%)); a t-interval "
        "on the log scale (rounds→60 %) (n < 5: a bootstrap is unreliable)" in said
    )


def test_the_caption_names_the_seeds_whatever_order_the_runs_came_in() -> None:
    # runs recorded by parallel processes reach the server in any order: [1, 0, 2]
    groups = {
        "A": [Sample(s, {"final_test_acc": 0.8 + s / 100}) for s in (1, 0, 2)],
        "B": [Sample(s, {"final_test_acc": 0.7 + s / 50}) for s in (0, 1, 2)],
    }

    t = compare(groups, "A", names=["final_test_acc"])

    assert [r.seeds for r in t.rows] == [[0, 1, 2], [0, 1, 2]]
    assert caption(t).startswith("Mean ± sample std over 3 runs a group (seeds 0, 1, 2);")


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


def deterministic() -> Table:
    """Example 1's shape: 3 seeds that give bit-identical runs, FedLaAvg 0.5 points below
    FedAvg on final accuracy, the same gap; wall time varies (the machine's load)."""
    runs = {
        "FedAvg": {"final_test_acc": 0.905, "final_opt_gap": 0.01},
        "FedLaAvg": {"final_test_acc": 0.900, "final_opt_gap": 0.01},
    }
    groups = {
        name: [Sample(s, {**values, "wall_s": 10.0 + s + i}) for s in SEEDS]
        for i, (name, values) in enumerate(runs.items())
    }
    # wall time asked for first: the figures of the machine still come last
    return compare(groups, "FedAvg", names=["wall_s", "final_test_acc", "final_opt_gap"])


def test_identical_seeds_are_said_in_words_not_tested() -> None:
    # Before: "better · Holm p < 0.001" (a paired t-test on constant differences, p = 0).
    t = deterministic()

    said, tex, md = caption(t), latex(t), markdown(t)

    assert t.n_tests == 0 and "†" not in md and r"\dagger" not in tex
    assert (
        "FedLaAvg and FedAvg are identical across their 3 seeds (deterministic): no test; "
        "the difference (FedLaAvg − FedAvg) is the constant final acc (%) -0.5000 %; "
        "equal on gap." in said
    )
    lines = text(t)
    assert (
        "FedLaAvg vs FedAvg, final acc: no test (deterministic: the values differ by a "
        "constant in every pair; Δ -0.5000 (constant))" in lines
    )
    # the value alone: "± 0" would read as a spread measured (the CSV keeps its std, 0)
    assert "90.50 ±" not in md and "| **90.50** |" in md
    rows = list(csv.DictReader(io.StringIO(to_csv(t))))
    assert rows[0]["final_test_acc[%].ci"] == "identical across seeds"
    assert rows[0]["final_test_acc[%].ci_low"] == "" and rows[0]["final_test_acc[%].std"] == "0.0"
    doc = table_json(t)
    stat = doc["rows"][1]["stats"]["final_test_acc"]
    assert (stat["identical"], stat["ci_note"], stat["ci_text"]) == (
        True,
        "identical across seeds",
        None,
    )
    test = next(x for x in doc["tests"] if x["metric"] == "final_test_acc")
    assert (test["degenerate"], test["diff_text"], test["p_value"]) == (
        "constant",
        "-0.5000 (constant)",
        None,
    )


def test_figures_of_the_machine_are_apart_and_never_bold() -> None:
    # Before: wall time bolded as "best", tested, mixed in with the method's values.
    t = deterministic()

    tex, md, lines = latex(t), markdown(t), text(t)

    assert [c.spec.name for c in columns(t)] == ["final_test_acc", "final_opt_gap", "wall_s"]
    assert r"\begin{tabular}{lrr@{\quad}r}" in tex
    assert r" &  &  & \multicolumn{1}{c}{machine (not compared)} \\" in tex
    assert r"\cmidrule(l){4-4}" in tex
    body = tex.split("\\midrule\n")[1].split("\\bottomrule")[0].strip().splitlines()
    assert [line.split(" & ")[-1] for line in body] == [r"$11.0 \pm 1.0$ \\", r"$12.0 \pm 1.0$ \\"]
    assert "Machine (not compared): wall time (s): figures of the machine" in caption(t)
    method, machine = md.split("*machine (not compared)*")
    assert "wall time" not in method and "| FedAvg (reference) | 11.0 ± 1.0 |" in machine
    assert "**" not in machine and r"\mathbf{11.0" not in tex  # FedAvg's, the least
    assert lines.index("machine (not compared)") > lines.index("FedLaAvg")
    assert "FedLaAvg vs FedAvg, wall time" not in lines
    head = next(csv.reader(io.StringIO(to_csv(t))))
    machine_head = [h for h in head if "wall_s" in h]
    assert head[-len(machine_head) - 1 : -1] == machine_head and head[-1] == "notes"
    assert machine_head == [
        f"machine.wall_s[s].{f}" for f in ("mean", "std", "ci_low", "ci_high", "ci", "n")
    ]
    doc = table_json(t)
    assert doc["machine"] == ["wall_s"] and all(x["metric"] != "wall_s" for x in doc["tests"])
