import json
import math
from pathlib import Path

import pytest

from fedwatch.cli.compare_cmd import seed_list
from fedwatch.cli.comparison import build, render_all
from fedwatch.command import main
from tests.engine.test_data import write_tiny_mnist
from worker.engine import metrics
from worker.engine.data.kept_pools import KeptPools
from worker.presets import get_preset
from worker.results.grouping import GroupingError


def run(alg: str, seed: int, acc: float, variant: str = "") -> dict[str, object]:
    values = {"time_avg_test_acc": acc, "final_test_acc": acc}
    return {"group": variant, "algorithm": alg, "seed": seed, "metrics": values}


def test_sections_test_each_baseline_against_the_proposed_method() -> None:
    runs = [run("a", s, v) for s, v in ((0, 0.8), (1, 0.7), (2, 0.75))]
    runs += [run("b", s, v) for s, v in ((0, 0.6), (1, 0.55), (2, 0.57))]

    (section,) = build(runs, "none", ["a", "b"], [""], 0.05, [None])
    text = render_all([section], "text")

    assert [r.group for r in section.table.rows] == ["a", "b"]
    assert section.values["b"]["final_test_acc"] == [0.6, 0.55, 0.57]
    (avg,) = [t for t in section.table.tests if t.metric == "time_avg_test_acc"]
    # b − a = (−0.2, −0.15, −0.18): mean −0.1767, sd 0.0252, t = −12.2 (2 df): p = 0.0067;
    # two tests (time-average and final accuracy) share Holm's correction: × 2
    d = [-0.2, -0.15, -0.18]
    mean = sum(d) / 3
    t = mean / (math.sqrt(sum((x - mean) ** 2 for x in d) / 2) / math.sqrt(3))
    assert avg.p_value == pytest.approx(1 - abs(t) / math.sqrt(t * t + 2))
    assert avg.p_adjusted == pytest.approx(2 * (avg.p_value or 0)) and avg.verdict == "worse"
    lines = text.splitlines()
    assert lines[1].startswith("a (reference)") and lines[2].startswith("b ")
    heading = [h.strip() for h in lines[0].split("  ") if h.strip()]
    assert heading == ["group", "final acc (%)", "avg acc (%)"]  # the columns with values
    assert "75.0 ± 5.0 *" in lines[1] and "57.3 ± 2.5†" in lines[2]
    assert "b vs a, avg acc: Δ -17.7" in text and "paired t" in text and ": worse" in text


def test_an_explicit_reference_comes_before_the_proposed_method() -> None:
    runs = [run(a, s, 0.5 + s / 10 + (a == "b") / 5) for a in ("a", "b") for s in (0, 1, 2)]

    (default,) = build(runs, "none", ["a", "b"], [""], 0.05, [None])
    (asked,) = build(runs, "none", ["a", "b"], [""], 0.05, [None], reference="b")
    (renamed,) = build(
        runs, "none", ["a", "b"], [""], 0.05, [None], labels={"b": "B (ours)"}, reference="B (ours)"
    )

    assert (default.table.reference, default.grouping.why) == ("a", "first")
    assert (asked.table.reference, asked.grouping.why) == ("b", "explicit")
    assert {t.reference for t in asked.table.tests} == {"b"}
    assert "Reference: b (as asked)." in render_all([asked], "text")
    assert "Reference: B (ours) (as asked)." in render_all([renamed], "tex")
    assert "B (ours) (reference) &" in render_all([renamed], "tex")
    with pytest.raises(GroupingError, match="'c' is not one of the groups"):
        build(runs, "none", ["a", "b"], [""], 0.05, [None], reference="c")


def test_variants_make_one_csv_and_a_heading_each() -> None:
    runs = [run(a, s, 0.5 + s / 10, v) for v in ("x", "y") for a in ("a", "b") for s in (0, 1)]

    sections = build(runs, "none", ["a", "b"], ["x", "y"], 0.05, [None])

    csv_rows = render_all(sections, "csv").splitlines()
    assert csv_rows[0].startswith("variant,group,reference,n,seeds,final_test_acc[%].mean")
    assert [r.split(",")[:2] for r in csv_rows[1:]] == [["x", "a"], ["x", "b"], ["y", "a"],
                                                         ["y", "b"]]  # fmt: skip
    md = render_all(sections, "md")
    assert md.startswith("## x\n") and "\n## y\n" in md
    assert "2 pairs by seed" in render_all(sections, "text")


def test_seed_list_cuts_or_extends_the_preset_seeds() -> None:
    assert seed_list((0, 1, 2), None) == [0, 1, 2]
    assert seed_list((0, 1, 2), 2) == [0, 1]
    assert seed_list((4, 7), 4) == [4, 7, 8, 9]


def test_compare_runs_the_set_and_writes_json_and_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["compare", "cafed-synthetic", "--seeds", "2", "--out", str(tmp_path), "--jobs", "2"]

    code = main([*args, "--set", "rounds=4", "--set", "eval.client_every=2"])

    out = capsys.readouterr().out
    assert code == 0
    files = sorted(p.name for p in tmp_path.glob("*-seed*.json"))
    algorithms = ("cafed", "unbiased", "adafed", "f3ast")
    assert files == sorted(f"{a}-seed{s}.json" for a in algorithms for s in (12, 123))
    run = json.loads((tmp_path / "f3ast-seed123.json").read_text())
    assert run["config"]["seed"] == 123 and len(run["rounds"]) == 4
    for method in get_preset("cafed-synthetic").compare:  # each with its paper's lrs
        config = json.loads((tmp_path / f"{method.algorithm}-seed12.json").read_text())["config"]
        assert config["client"]["lr"] == method.set["client.lr"]
        assert config["server"]["lr"] == method.set["server.lr"]
    lines = out.split("\n\n")[0].splitlines()  # the table, then its caption and tests
    # the methods' names as the paper's, the proposed method the reference
    assert [line.split()[0] for line in lines[1:]] == ["CA-Fed", "Unbiased", "AdaFed", "F3AST"]
    assert "(reference)" in lines[1]
    assert "Reference: CA-Fed (the preset's proposed method)." in out
    (table,) = json.loads((tmp_path / "table.json").read_text())["variants"]
    assert table["columns"] == [c.name for c in metrics.compared()]
    assert table["rows"][1]["seeds"] == [12, 123]
    tested = {c.name for c in metrics.compared() if c.better and not c.machine}
    assert {"time_avg_test_acc", "final_test_acc"} <= tested
    assert {t["metric"] for t in table["tests"] if t["group"] == "unbiased"} == tested
    # two seeds pair: no test, and the table says why
    assert "2 pairs by seed: a paired t-test needs at least 3" in out
    for name in ("table.txt", "table.csv", "table.md", "table.tex"):
        assert (tmp_path / name).stat().st_size > 0


def test_compare_keeps_the_dataset_for_its_runs_and_removes_it_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tiny_mnist(tmp_path / "data", 200, 40)
    shared = tmp_path / "shm"
    shared.mkdir()
    monkeypatch.setenv("FEDWATCH_KEEP_DATASETS_DIR", str(shared))
    kept_at_the_end: list[str] = []
    close = KeptPools.close

    def recording_close(pools: KeptPools) -> None:
        kept_at_the_end.extend(entry.name for entry in pools.entries())
        close(pools)

    monkeypatch.setattr(KeptPools, "close", recording_close)
    args = ["compare", "cafed-mnist", "--seeds", "1", "--jobs", "1", "--out", str(tmp_path)]

    monkeypatch.setenv("FEDWATCH_DATA_ROOT", str(tmp_path))
    code = main([*args, "--set", "rounds=2", "--set", f"data.root={tmp_path / 'data'}"])

    assert code == 0 and len(list(tmp_path.glob("*-seed*.json"))) == 4
    assert [name[:6] for name in kept_at_the_end] == ["mnist-"]  # kept by the runs
    assert list(shared.iterdir()) == []


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--variant", "nope"], "--variant: unknown nope"),
        (["--set", "rounds=0"], "rounds:"),
        (["--seeds", "0"], "--seeds"),
    ],
)
def test_bad_arguments_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code = main(["compare", "cafed-synthetic", "--out", str(tmp_path), *extra])

    assert code == 2
    assert message in capsys.readouterr().err
