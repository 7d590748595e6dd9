import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fedwatch.command import main
from tests.engine.test_data import write_tiny_cifar


def test_example1_fedavg_writes_rounds_and_summary(tmp_path: Path) -> None:
    out = tmp_path / "a.json"

    code = main(["simulate", "example1", "--set", "algorithm.name=fedavg", "--out", str(out)])

    result = json.loads(out.read_text())
    params = [r["param"] for r in result["rounds"]]
    assert code == 0
    assert result["config"]["algorithm"]["name"] == "fedavg"
    assert len(result["rounds"]) == 4000 and result["rounds"][0]["round"] == 0
    assert sum(params[-40:]) / 40 == pytest.approx(0.5, abs=0.05)
    assert {
        "n_available",
        "n_selected",
        "staleness_mean",
        "staleness_p90",
        "test_loss",
        "opt_gap",
    } <= set(result["rounds"][-1])
    assert {
        "best_test_acc",
        "final_test_acc",
        "time_avg_test_acc",
        "std_test_acc_second_half",
        "rounds_to_target",
        "wall_s",
        "client_updates_per_s",
    } <= set(result["summary"])


def test_the_final_model_is_written_as_a_file(tmp_path: Path) -> None:
    from worker.engine.artifact import load_module

    model = tmp_path / "model.safetensors"

    code = main(["simulate", "example1", "--set", "rounds=30", "--model", str(model)])

    result_x = load_module(model.read_bytes()).state_dict()
    assert code == 0 and list(result_x) == ["x"]  # the scalar model's one parameter


def test_config_file_with_overrides(tmp_path: Path) -> None:
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps({"rounds": 3, "data": {"n_clients": 6}}))
    out = tmp_path / "b.json"

    code = main(["simulate", str(path), "--set", "algorithm.participation=2", "--out", str(out)])

    result = json.loads(out.read_text())
    assert code == 0 and [r["n_selected"] for r in result["rounds"]] == [2.0, 2.0, 2.0]
    assert result["summary"]["final_test_acc"] is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "nope"], "neither a preset"),
        (["simulate", "example1", "--set", "algorithm.participation=9"], "algorithm.participation"),
        (["simulate", "example1", "--set", "rounds"], "expected dotted.key=value"),
        (["simulate", "fedlaavg-mnist", "--set", "data.root=/nonexistent"], "data.root"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "fedwatch.command", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )

    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2
    assert lines[-1].startswith("fedwatch: error:") and message in lines[-1]
    assert "Traceback" not in proc.stderr


def test_presets_list_each_and_the_data_files_it_needs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["presets"]) == 0

    lines = capsys.readouterr().out.splitlines()
    example1 = next(i for i, line in enumerate(lines) if line.startswith("example1 "))
    cifar = next(i for i, line in enumerate(lines) if line.startswith("mifa-cifar10 "))
    assert "needs cifar10: place cifar-10-batches-py/data_batch_1" in lines[cifar + 1]
    assert "needs" not in lines[example1 + 1]  # generated data needs no files


def test_data_failing_torchvisions_checksums_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """In a process of its own, as a user runs it: no traceback, no `download=True`."""
    write_tiny_cifar(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "fedwatch.command", "simulate", "mifa-cifar10",
         "--set", f"data.root={tmp_path}", "--set", "rounds=1"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "FEDWATCH_DATA_ROOT": str(tmp_path)},
    )  # fmt: skip

    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()[-1:]
    assert line.startswith("fedwatch: error: data.root: cifar10 files under")
    assert "fail their checksums: cifar-10-batches-py/data_batch_1" in line
    assert "Traceback" not in done.stderr and "download=True" not in done.stderr


def test_simulate_exits_quickly_with_all_its_output(tmp_path: Path) -> None:
    """The command skips the interpreter's teardown (`os._exit`); what it printed to a
    pipe (block-buffered) and the file it wrote are whole."""
    out = tmp_path / "run.json"
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = subprocess.run(
        [sys.executable, "-m", "fedwatch.command", "simulate", "example1",
         "--set", "rounds=3", "--out", str(out)],
        capture_output=True, text=True, timeout=120, env=buffered,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rounds_done"] == 3
    assert len(json.loads(out.read_text())["rounds"]) == 3
    assert f"wrote {out}" in done.stderr
