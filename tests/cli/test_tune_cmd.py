"""`fedwatch tune`: refusals before anything runs, and a whole tuned comparison on the
convex problem of `tests/tune/test_study.py` (best lr ½, loss 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fedwatch.command import main

CONVEX = [
    "--set", "availability.kind=always",
    "--set", "data.mean_estimation.means=[2.0, 2.0]",
    "--set", "rounds=2",
]  # fmt: skip


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--param", "client.lrr=log:1e-3:1"], "client.lrr: Extra inputs are not permitted"),
        (["--param", "client.lr=log:1:1e-3"], "client.lr: empty or inverted range"),
        (["--param", "client.lr=linear:-1:1"], "client.lr: Input should be greater than 0"),
        (["--param", "client.lr=log:1e-3:1", "--objective", "final_test_loss"], "validation"),
        (["--param", "client.lr=log:1e-3:1", "--objective", "final_val_acc"], "records no"),
        (["--param", "client.lr=log:1e-3:1", "--trials", "0"], "--trials: need at least 1"),
        (["--param", "client.lr=log:1e-3:1", "--validation", "0"], "eval.validation"),
        (["--param", "client.lr=log:1e-3:1", "--param", "client.lr=int:1:2"], "searched twice"),
    ],
)
def test_bad_input_is_refused_and_nothing_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    out = tmp_path / "tune"
    args = ["tune", "example1", "--out", str(out), "--objective", "final_val_loss", *CONVEX]

    code = main([*args, *extra])

    assert code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_a_tuned_comparison_on_the_convex_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tune", "example1", "--out", str(tmp_path), "--objective", "final_val_loss"]
    args += ["--param", "client.lr=choice:0.25,0.5", "--sampler", "grid", "--trials", "2"]
    args += ["--seeds", "2", "--pruner", "none", "--format", "md", *CONVEX]

    code = main(args)

    out = capsys.readouterr().out
    assert code == 0
    trials = json.loads((tmp_path / "trials.json").read_text())
    assert [m["method"] for m in trials["methods"]] == ["fedavg", "fedlaavg", "mifa"]
    chosen = [(m["params"], m["best_value"]) for m in trials["methods"]]
    assert chosen == [({"client.lr": 0.5}, 0.0)] * 3
    assert sorted(p.name for p in tmp_path.glob("fedavg-seed*.json")) == [
        "fedavg-seed1.json",
        "fedavg-seed2.json",
    ]  # fresh seeds: after the tuning seed 0
    final = json.loads((tmp_path / "fedavg-seed1.json").read_text())
    assert final["config"]["eval"]["validation"] == 0  # the whole training data
    assert final["config"]["client"]["lr"] == 0.5
    assert "Each method tuned over 2 trials on validation" in out
    assert "final: mean over 2 fresh seeds on the test set" in out
    assert "| mifa | 0.5 | 0 | 2 | 0 | 0 |" in out
    assert (tmp_path / "settings.tex").read_text().count(r"\\") == 4  # head + 3 methods
