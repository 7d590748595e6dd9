"""`fedwatch reproduce`: a paper preset's methods over its seeds, reported against the
authors' code; with the official draws replayed, run for run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fedwatch.command import main
from worker.reproduction.figures import rmse, run_curve
from worker.reproduction.references import reference


def test_official_draws_reproduce_the_official_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["reproduce", "cafed-synthetic", "--seeds", "1", "--official-draws"]

    code = main([*args, "--out", str(tmp_path), "--jobs", "2"])

    out = capsys.readouterr().out
    assert code == 0
    assert (tmp_path / "report.md").read_text().strip() == out.strip()
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["draws"] == "official" and report["runs_done"] == 4
    for row in report["rows"]:  # seed 12 only: one run per method against the official 3
        assert row["seeds"] == [12]
        assert row["curve_rmse"] is not None
    svg = (tmp_path / "curves.svg").read_text()  # matplotlib's, text kept as text
    for text in ("cafed", "unbiased", "adafed", "f3ast", "test accuracy (%)", "official code"):
        assert f">{text}</text>" in svg or f">{text} <" in svg or text in svg, text
    assert svg.count("<text") >= 4 * 3  # a title, an axis label and ticks per panel
    assert (tmp_path / "curves.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "curves.png").read_bytes().startswith(b"\x89PNG")
    assert "| cafed | client.lr=0.01, server.lr=0.3 |" in out
    assert "replayed the draws of the official run" in out


def test_the_runs_match_the_official_runs_of_the_same_seed(tmp_path: Path) -> None:
    """Seed 12 replayed: each method's curve lies within 0.5 pp RMS of its official one."""
    assert main(["reproduce", "cafed-synthetic", "--seeds", "1", "--official-draws",
                 "--out", str(tmp_path), "--jobs", "2"]) == 0  # fmt: skip
    ref = reference("cafed-synthetic")
    assert ref is not None
    for method in ("unbiased", "adafed", "f3ast", "cafed"):
        record = json.loads((tmp_path / f"{method}-seed12.json").read_text())
        curve = run_curve(12, ((r["round"], r) for r in record["rounds"]))
        (official,) = [r for r in ref.runs[method] if r.seed == 12]
        expected = (list(official.curve.rounds), list(official.curve.acc))
        assert 100 * rmse(curve, expected) < 0.5, method


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--seeds", "4", "--official-draws"], "no official cafed run with seed 1235"),
        (["--variant", "x"], "--variant: cafed-synthetic has no variants"),
    ],
)
def test_bad_arguments_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code = main(["reproduce", "cafed-synthetic", "--out", str(tmp_path), *extra])

    assert code == 2
    assert message in capsys.readouterr().err


def test_official_draws_are_refused_where_the_official_runs_record_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["reproduce", "fedlaavg-mnist", "--official-draws", "--out", str(tmp_path)])

    assert code == 2
    assert "the official fedlaavg runs record no draws" in capsys.readouterr().err


def test_an_image_preset_names_the_files_it_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FEDWATCH_DATA_ROOT", str(tmp_path))
    code = main(["reproduce", "cafed-mnist", "--out", str(tmp_path), "--set",
                 f"data.root={tmp_path}"])  # fmt: skip

    err = capsys.readouterr().err
    assert code == 2
    assert "cafed-mnist: data.root: mnist not found under" in err
    assert "MNIST/raw/train-images-idx3-ubyte" in err
    assert len(err.strip().splitlines()) == 1
