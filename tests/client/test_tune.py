"""`fw.tune` against a real `fedwatch serve`: the tables of a whole tune, a refusal, and
a tune that survives the server's crash and restart."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from fedwatch.client import FedWatch
from fedwatch.command import main
from fedwatch.transport import Refused, Transport
from fedwatch.tuning import submit, tune_body, wait
from tests.client.conftest import Server

pytestmark = pytest.mark.slow

SPACE = ["client.lr=log:1e-3:1"]
OPTIONS: dict[str, Any] = {
    "methods": ["cafed", "unbiased"],
    "trials": 2,
    "seeds": 2,
    "sampler": "random",
    "pruner": "none",
    "set": ["rounds=3", "device=cpu"],
}


def test_fw_tune_returns_its_tables(server: Server, tmp_path: Path) -> None:
    fw = FedWatch(server.url, spool_dir=tmp_path / "spool")

    tuned = fw.tune("cafed-synthetic", SPACE, poll_s=0.2, timeout_s=300, **OPTIONS)

    settings = tuned.settings.to_dict("index")
    assert list(settings) == ["cafed", "unbiased"]
    for row in settings.values():
        assert (row["complete"], row["pruned"], row["failed"], row["short"]) == (2, 0, 0, False)
        assert 1e-3 <= row["client.lr"] <= 1
    # each method's best value is the larger of its two trials' validation accuracies
    for method, rows in tuned.trials.groupby("method"):
        assert settings[method]["best_value"] == rows["value"].max()
        assert len(rows) == 2 and set(rows["state"]) == {"complete"}
    comparison = tuned.comparison.to_dict("index")
    assert [r["key"] for r in comparison.values()] == ["cafed", "unbiased"]
    assert all(r["n"] == 2 and r["seeds"] == [1, 2] for r in comparison.values())
    assert tuned.comparison.attrs["caption"].startswith(tuned.protocol)
    assert tuned.protocol.startswith("Each method tuned over 2 trials on validation")


def test_a_refused_tune_raises_with_the_key(server: Server, tmp_path: Path) -> None:
    fw = FedWatch(server.url, spool_dir=tmp_path / "spool")

    with pytest.raises(Refused) as caught:
        fw.tune("cafed-synthetic", ["client.lr=log:1:0.001"], **OPTIONS)

    assert caught.value.status == 422
    (error,) = caught.value.detail
    assert error["loc"] == ["body", "space", "client", "lr"] and "inverted" in error["msg"]


def test_a_tune_survives_a_server_crash(server: Server) -> None:
    transport = Transport(server.url, None, 10)
    options = {**OPTIONS, "trials": 3, "parallel": 1, "set": ["rounds=30", "device=cpu"]}
    tune_id = submit(transport, tune_body("cafed-synthetic", SPACE, options))
    deadline = time.monotonic() + 120
    while not any(
        t["state"] == "complete" for t in transport.get_json(f"/api/tunes/{tune_id}")["trials"]
    ):
        assert time.monotonic() < deadline, "no trial completed"
        time.sleep(0.1)

    server.kill()
    server.start()
    tune = wait(transport, tune_id, timeout_s=300, poll_s=0.2)

    for progress in tune["progress"]:  # the budget is met whatever was in flight
        assert progress["complete"] == 3
    # a trial lost with the crash (asked, its run not yet stored) shows no run
    runs = [t["run_id"] for t in tune["trials"] if t["run_id"] is not None]
    assert len(set(runs)) == len(runs)
    listed = transport.get_json("/api/runs", {"tag": f"tune:{tune_id}", "limit": 100})
    assert listed["count"] == len(runs) + 2 * 2


def test_the_command_submits_to_a_server(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tune", "cafed-synthetic", "--param", "client.lr=log:1e-3:1", "--trials", "2"]
    args += ["--seeds", "2", "--sampler", "random", "--pruner", "none", "--format", "md"]
    args += ["--set", "rounds=3", "--set", "device=cpu", "--server", server.url]

    assert main([*args, "--out", str(tmp_path)]) == 0

    out = capsys.readouterr().out
    assert "Each method tuned over 2 trials on validation" in out
    assert "| method | client.lr | best validation value | complete | pruned | failed |" in out
    for method in ("cafed", "unbiased", "adafed", "f3ast"):
        assert f"| {method} | " in out
    (written,) = tmp_path.glob("tune-*.md")
    assert written.read_text() + "\n" == out
    bad = main([*args[:3], "client.lrr=log:1e-3:1", *args[4:]])
    assert bad == 2
    assert "space.client.lrr: Extra inputs are not permitted" in capsys.readouterr().err


def test_the_command_tabulates_on_a_server_as_it_does_here(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Example 1 with noisy samples: the final x varies by seed, so 3 seeds make tests run
    args = ["tune", "example1", "--param", "client.lr=choice:0.25,0.5", "--sampler", "grid"]
    args += ["--trials", "2", "--seeds", "3", "--pruner", "none", "--format", "md"]
    args += ["--objective", "final_val_loss", "--set", "data.mean_estimation.sigma=1.0"]
    args += ["--set", "rounds=3", "--set", "device=cpu"]
    table = ["--reference", "fedavg", "--label", "mifa=MIFA (memory)", "--alpha", "0.5"]
    table += ["--columns", "final_param,final_opt_gap"]  # no figure of the machine

    assert main([*args, *table, "--out", str(tmp_path / "here")]) == 0
    here = capsys.readouterr().out
    assert main([*args, *table, "--server", server.url]) == 0
    remote = capsys.readouterr()

    assert remote.out == here
    assert "| group | final x | gap |\n" in here
    assert "| FedAvg (reference) |" in here and "| MIFA (memory) |" in here
    assert "α = 0.5." in here and "**†" in here  # the baselines differ at that level
    # the server's own tables of that tune, without the arguments, are other ones
    tune_id = int(remote.err.split("tune ", 1)[1].split()[0])
    plain = Transport(server.url, None, 10).get(f"/api/tunes/{tune_id}/tables", {"format": "md"})
    assert "| FedLaAvg (reference) |" in plain.decode() and "MIFA (memory)" not in plain.decode()
