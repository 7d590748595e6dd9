import json
import math
from pathlib import Path

import pytest

from fedwatch.cli.compare_cmd import seed_list
from fedwatch.cli.comparison import build_rows, cell, format_table, format_tests
from fedwatch.cli.main import main
from tests.engine.test_data import write_tiny_mnist
from worker.engine import metrics
from worker.engine.data.kept import KeptPools
from worker.engine.presets import get_preset
from worker.engine.stats import mean_std, paired_p


def test_paired_t_test_by_hand() -> None:
    proposed, baseline = [0.80, 0.75, 0.78], [0.78, 0.74, 0.73]
    # d = (0.02, 0.01, 0.05): mean 0.08/3, Σ(d − d̄)² = 0.0026/3, sample sd √(that/2)
    t = (0.08 / 3) / (math.sqrt(0.0026 / 3 / 2) / math.sqrt(3))
    # two-sided p of Student's t with 2 degrees of freedom: 1 − t/√(t² + 2)
    expected = 1 - t / math.sqrt(t * t + 2)

    assert paired_p(proposed, baseline) == pytest.approx(expected, rel=1e-9)
    assert paired_p([0.8], [0.7]) is None  # one seed: no test
    assert paired_p([0.8, 0.7], [0.8, 0.7]) is None  # identical runs: undefined


def test_cells_show_mean_std_and_missing_seeds() -> None:
    # sample std (n − 1), as the API's: √((5² + 5²) / 1) = 7.07
    assert cell(mean_std([0.8, 0.9]), 2, 100.0) == "85.00±7.07"
    assert cell(mean_std([None, 40.0]), 2, 1.0) == "40 (1/2)"
    assert cell(mean_std([None]), 1, 1.0) == "—"
    assert cell(mean_std([0.25, 0.5]), 2, 1.0) == "0.38±0.18"  # final x: not rounded away


def test_rows_test_each_baseline_against_the_proposed_method() -> None:
    def run(alg: str, seed: int, acc: float) -> dict[str, object]:
        metrics = {"time_avg_test_acc": acc, "final_test_acc": acc}
        return {"group": "", "algorithm": alg, "seed": seed, "metrics": metrics}

    runs = [run("a", 0, 0.8), run("a", 1, 0.7), run("b", 0, 0.6), run("b", 1, 0.55)]

    rows = build_rows(runs, "a", ["a", "b"], [""])
    table = format_table(rows)
    tests = format_tests(rows)

    assert [r.algorithm for r in rows] == ["a", "b"]
    assert rows[0].p_values == {}
    assert rows[1].p_values["time_avg_test_acc"] == pytest.approx(paired_p([0.6, 0.55], [0.8, 0.7]))
    assert table.splitlines()[1].startswith("a*")
    heading = [h.strip() for h in table.splitlines()[0].split("  ") if h.strip()]
    assert heading == ["algorithm", "final acc", "avg acc"]  # the columns with values
    # b − a = (−0.2, −0.15): mean −0.175, −17.5 points of accuracy, worse
    assert "b  avg acc: Δ -17.5" in tests and "worse (2 pairs)" in tests


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
    lines = out.split("\n\n")[0].splitlines()  # the table, then the t-tests
    assert [line.split()[0] for line in lines[1:]] == ["cafed*", "unbiased", "adafed", "f3ast"]
    table = json.loads((tmp_path / "table.json").read_text())
    assert table["columns"] == [c.name for c in metrics.compared()]
    assert table["rows"][1]["seeds"] == [12, 123]
    tested = {c.name for c in metrics.compared() if c.better}
    assert {"time_avg_test_acc", "final_test_acc"} <= tested
    assert set(table["rows"][1]["p_values"]) == tested
    assert "paired t-tests" in out


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
