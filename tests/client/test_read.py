"""The SDK's read API against a real `fedwatch serve`: runs, every round and the client
records come back exactly as stored (no downsampling), for an external and a
simulated run; a comparison as a DataFrame."""

from __future__ import annotations

import math
from pathlib import Path

import httpx
import numpy as np
import pytest

from fedwatch.client import FedWatch
from fedwatch.command import main
from fedwatch.read import ComparisonWarning
from tests.api.helpers import example1, reference, submit, wait_final
from tests.client.conftest import Server
from tests.client.rounds import Logged

pytestmark = pytest.mark.slow

ROUNDS = 1200  # past /metrics' 1000 points: a downsampled read would show


def test_an_external_run_reads_back_exactly(server: Server, tmp_path: Path) -> None:
    logged = Logged.random(ROUNDS, seed=3)
    fw = FedWatch(server.url, spool_dir=tmp_path / "spool", flush_s=0.05)
    config = {"lr": 0.1, "model": {"name": "cnn", "hidden": 64}}
    with fw.start_run("read-back", config, n_clients=logged.n_clients, experiment="reads") as run:
        logged.log(run, range(ROUNDS))
    assert run.finished and run.id is not None

    runs = fw.runs(experiment="reads")
    history = fw.run(run.id).history()

    (row,) = runs.to_dict("records")
    assert (row["id"], row["name"], row["status"], row["source"]) == (
        run.id, "read-back", "succeeded", "external",
    )  # fmt: skip
    assert (row["lr"], row["model.name"], row["model.hidden"]) == (0.1, "cnn", 64)
    assert row["best_test_acc"] == max(logged.acc)
    assert list(history.index) == list(range(ROUNDS))
    assert history["test_acc"].tolist() == logged.acc
    assert history["train_loss"].tolist() == [1 - a for a in logged.acc]
    assert (history["wall_s"].diff().dropna() >= 0).all()
    assert list(fw.run(run.id).history(["test_acc"]).columns) == ["test_acc"]

    reader = fw.run(run.id)
    available = reader.clients("availability")
    expected = [(t, int(k)) for t, ids in enumerate(logged.available) for k in ids]
    assert list(zip(available["round"], available["client"], strict=True)) == expected
    assert set(available["value"]) == {1.0}
    selection = reader.clients("selection")
    expected = [(t, int(k)) for t, ids in enumerate(logged.selected) for k in ids]
    assert list(zip(selection["round"], selection["client"], strict=True)) == expected
    weights = reader.clients("weights")
    assert np.allclose(weights["value"], np.concatenate(logged.weights), rtol=1e-6)
    staleness = reader.clients("staleness")
    assert len(staleness) == ROUNDS * logged.n_clients
    table = staleness.pivot(index="client", columns="round", values="value")
    assert table.to_numpy().tolist() == logged.staleness()


def test_a_simulated_run_reads_back_exactly(server: Server, tmp_path: Path) -> None:
    config = example1(ROUNDS)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        run_id = submit(client, config)["id"]
        assert wait_final(client, run_id)["status"] == "succeeded"
    fw = FedWatch(server.url, spool_dir=tmp_path / "spool")

    history = fw.run(run_id).history()
    runs = fw.runs(query=config["name"])

    expected = reference(config)  # the same config in-process: the engine's records
    assert list(history.index) == [r["round"] for r in expected]
    for name in ("param", "opt_gap", "n_available", "n_selected", "staleness_max"):
        got = history[name].tolist()
        assert got == [r.get(name, math.nan) for r in expected], name
    (row,) = runs[runs.id == run_id].to_dict("records")
    assert row["algorithm.name"] == config["algorithm"]["name"] and row["rounds"] == ROUNDS
    assert row["final_param"] == pytest.approx(expected[-1]["param"])


def test_compare_as_a_dataframe(server: Server, tmp_path: Path) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        ids = [submit(client, example1(40, algorithm__name=alg, seed=seed))["id"]
               for alg in ("fedlaavg", "fedavg") for seed in (0, 1, 2)]  # fmt: skip
        for run_id in ids:
            assert wait_final(client, run_id)["status"] == "succeeded"
    fw = FedWatch(server.url, spool_dir=tmp_path / "spool")

    table = fw.compare(ids, reference="fedlaavg", columns=["final_opt_gap", "final_param"])

    rows = table.to_dict("index")
    assert list(rows) == ["FedLaAvg", "FedAvg"]  # by label; the key is a column
    assert rows["FedLaAvg"]["reference"] and rows["FedAvg"]["n"] == 3
    assert rows["FedAvg"]["key"] == "fedavg" and table.attrs["reference"] == "FedLaAvg"
    fedavg = rows["FedAvg"]
    # Example 1 is deterministic: its seeds give the same run, so the difference is a
    # constant; no test (before: a paired t-test, p ≈ 0), the difference reported
    assert fedavg["final_opt_gap.test"] is None and fedavg["final_opt_gap.p"] is None
    assert fedavg["final_opt_gap.reason"].startswith("deterministic: ")
    assert fedavg["final_opt_gap.mean_diff"] != 0
    said = "FedAvg and FedLaAvg are identical across their 3 seeds (deterministic): no test; "
    assert said in table.attrs["caption"]
    ours = rows["FedLaAvg"]
    assert ours["final_param.identical"] and ours["final_param.ci_low"] is None
    assert ours["final_param.std"] == 0
    assert table.attrs["machine"] == []

    figure = tmp_path / "curves.svg"  # `fedwatch plot --url`: the server's figure
    runs = ",".join(map(str, ids))
    code = main(["plot", "--url", server.url, "--runs", runs, "--metric", "param", "--out",
                 str(figure)])  # fmt: skip
    assert code == 0 and "parameter x" in figure.read_text()


def test_the_readme_snippet_drops_a_duplicate_seed_and_names_the_reference(
    server: Server, tmp_path: Path
) -> None:
    """README steps 2 and 3 (a FedAvg run, then FedAvg and FedLaAvg over seeds 0, 1, 2),
    logged as external runs that name the example1 preset; then the README's snippet."""
    fw = FedWatch(server.url, spool_dir=tmp_path / "spool", flush_s=0.05)
    ids: list[int] = []
    for algorithm, seed in [("fedavg", 0), *((a, s) for a in ("fedavg", "fedlaavg")
                                               for s in (0, 1, 2))]:  # fmt: skip
        config = {"name": "example1", "algorithm": algorithm, "seed": seed}
        with fw.start_run(f"example1 {algorithm} seed={seed}", config, n_clients=2) as run:
            for t in range(5):
                run.log_round(t, {"test_acc": 0.5 + 0.1 * seed + 0.01 * t})
        assert run.id is not None
        ids.append(run.id)

    with pytest.warns(ComparisonWarning, match="seed 0 ran 2 times") as said:
        table = fw.compare(list(fw.runs(query="example1").id))
    renamed = fw.compare(ids, labels={"fedavg": "FedAvg (ours)", "FedLaAvg": "LaAvg, tuned"})

    assert list(table.index) == ["FedAvg", "FedLaAvg"]
    assert table.loc["FedAvg", "seeds"] == [0, 1, 2] and table.attrs["dropped"] == [ids[0]]
    kept = f"kept the newest run, #{ids[1]}; dropped #{ids[0]}."
    assert [str(w.message) for w in said] == table.attrs["warnings"]
    assert kept in table.attrs["warnings"][0] and kept in table.attrs["caption"]
    assert (table.attrs["reference"], table.attrs["reference_why"]) == ("FedLaAvg", "preset")
    assert list(renamed.index) == ["FedAvg (ours)", "LaAvg, tuned"]
    assert renamed.attrs["reference"] == "LaAvg, tuned"
    assert renamed.attrs["labels"] == {"fedavg": "FedAvg (ours)", "fedlaavg": "LaAvg, tuned"}
