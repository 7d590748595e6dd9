"""`fedwatch plot`: a figure from a `fedwatch compare` directory (the --url path is
tested against a real server in tests/client/test_read.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from pypdf import PdfReader

from fedwatch.command import main


def write_runs(directory: Path) -> None:
    """Two methods × two seeds as `fedwatch compare` writes them, and its table's order."""
    for algorithm, level in (("mifa", 0.7), ("fedavg", 0.6)):
        for seed in (0, 1):
            rounds = [{"round": t, "test_acc": level * t / 9 + 0.01 * seed, "wall_s": 0.1 * t}
                      for t in range(10)]  # fmt: skip
            record = {"variant": "", "algorithm": algorithm, "config": {}, "rounds": rounds}
            (directory / f"{algorithm}-seed{seed}.json").write_text(json.dumps(record))
    rows = [{"group": "mifa"}, {"group": "fedavg"}]
    (directory / "table.json").write_text(json.dumps({"variants": [{"variant": "", "rows": rows}]}))


def test_a_compare_directory_makes_a_pdf_in_its_table_order(tmp_path: Path) -> None:
    write_runs(tmp_path)
    out = tmp_path / "fig.pdf"

    code = main(["plot", str(tmp_path), "--band", "ci", "--out", str(out)])

    assert code == 0
    text = PdfReader(io.BytesIO(out.read_bytes())).pages[0].extract_text()
    assert text.index("MIFA") < text.index("FedAvg")  # the methods' names
    assert "test accuracy (%)" in text
    assert "band: 95 % CI of the mean, clipped to [0, 100] %" in " ".join(text.split())


def test_label_renames_a_group_in_the_legend(tmp_path: Path) -> None:
    write_runs(tmp_path)
    out = tmp_path / "fig.pdf"

    code = main(["plot", str(tmp_path), "--label", "fedavg=FedAvg (ours)", "--out", str(out)])

    text = PdfReader(io.BytesIO(out.read_bytes())).pages[0].extract_text()
    assert code == 0 and "FedAvg (ours)" in text and "MIFA" in text and "n = 2 runs" in text


def test_a_label_without_a_name_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["plot", str(tmp_path), "--label", "fedavg"])
    assert "'fedavg': expected GROUP=NAME" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--out", "x.jpg"], "the suffix must be one of .pdf, .svg, .png"),
        (["--metric", "nope"], "no run recorded nope"),
        (["--label", "sgd=SGD"], "--label: 'sgd' is not one of the groups"),
    ],
)
def test_bad_arguments_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    write_runs(tmp_path)

    code = main(["plot", str(tmp_path), *args])

    assert code == 2 and message in capsys.readouterr().err


def test_a_directory_without_runs_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plot", str(tmp_path)]) == 2
    assert "no run files" in capsys.readouterr().err
