import pytest

from fedwatch.command import main


def test_estimate_prints_memory_and_work_without_running(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["simulate", "fedlaavg-cifar10", "--estimate"])  # no dataset needed

    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("d = 62006 parameters\nmemory, peak: ")
    assert "fedlaavg's client memory: 1 × N × d = 1 × 1000 × 62006 floats (data.n_clients)" in out
    assert "\nwork: " in out


def test_estimate_reports_a_config_that_cannot_run(capsys: pytest.CaptureFixture[str]) -> None:
    sets = ["data.dataset=digits", "model.name=resnet18", "backend=vmap"]

    code = main(["simulate", "fedlaavg-mnist", *(f"--set={s}" for s in sets), "--estimate"])

    assert code == 2
    assert "error: backend: vmap cannot train models with buffers" in capsys.readouterr().err
