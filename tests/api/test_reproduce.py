"""Reproductions over REST: a paper preset's comparison set as an experiment, and its
report, the same computation as `fedwatch reproduce`'s."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from db.settings import Settings
from tests.api.helpers import wait_final
from tests.engine.test_data import write_tiny_mnist
from worker.data_root import RULE, missing_data
from worker.engine.data.vision import EXPECTED_FILES, needs
from worker.presets import get_preset

OFFICIAL_TIME_AVG = {"cafed": 71.79, "unbiased": 71.38, "adafed": 72.01, "f3ast": 71.36}


def test_reproduce_runs_every_method_and_reports_against_the_official_runs(
    client: TestClient,
) -> None:
    response = client.post("/api/presets/cafed-synthetic/reproduce", json={"seeds": [12]})
    assert response.status_code == 201, response.text
    experiment = response.json()
    preset = get_preset("cafed-synthetic")

    assert experiment["preset"] == "cafed-synthetic"
    assert [c["set"] for c in experiment["cells"]] == [m.assignments() for m in preset.compare]
    runs = [wait_final(client, i) for i in experiment["run_ids"]]
    assert [r["algorithm"] for r in runs] == [m.algorithm for m in preset.compare]
    assert all(r["status"] == "succeeded" for r in runs)
    for run, method in zip(runs, preset.compare, strict=True):
        for key, value in method.set.items():
            section, field = key.split(".", 1)
            assert run["config"][section][field] == value

    report = client.get(f"/api/experiments/{experiment['id']}/reproduction").json()

    assert (report["runs_done"], report["runs_total"]) == (4, 4)
    for row, run in zip(report["rows"], runs, strict=True):
        assert row["algorithm"] == run["algorithm"]
        ours = row["fedwatch"]["time_avg"]
        assert ours["n"] == 1
        assert ours["mean"] == pytest.approx(run["summary"]["time_avg_test_acc"])
        official = row["official"]["time_avg"]
        assert official["n"] == 3
        assert 100 * official["mean"] == pytest.approx(
            OFFICIAL_TIME_AVG[row["algorithm"]], abs=0.005
        )
        assert row["tests"]["time_avg"]["mean_diff"] == pytest.approx(
            ours["mean"] - official["mean"]
        )
        assert row["official_curve"][0][0] == 0 and len(row["official_curve"][0]) == 28


def test_errors(client: TestClient) -> None:
    assert client.post("/api/presets/nope/reproduce").status_code == 404
    response = client.post("/api/presets/fedar-cifar10/reproduce", json={"variant": "x"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "variant"]
    plain = client.post("/api/experiments", json={"name": "plain", "base": {"rounds": 1}})
    reply = client.get(f"/api/experiments/{plain.json()['id']}/reproduction")
    assert reply.status_code == 404
    assert "reproduces no preset" in reply.json()["detail"]


def test_a_preset_whose_data_is_missing_is_refused_with_what_it_needs(
    client: TestClient,
) -> None:
    # Before: 100 seeds of fedlaavg-cifar10 queued 400 runs that could only fail.
    before = client.get("/api/experiments").json()["count"]
    seeds = list(range(100))
    response = client.post("/api/presets/fedlaavg-cifar10/reproduce", json={"seeds": seeds})

    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert (error["loc"], error["type"]) == (["path", "name"], "data_missing")
    assert error["msg"].startswith("needs cifar10: place cifar-10-batches-py/data_batch_1")
    assert "under <data root> (data.root" in error["msg"]
    assert client.get("/api/experiments").json()["count"] == before


def test_missing_data_is_read_in_the_servers_data_root(tmp_path: Path) -> None:
    config = get_preset("fedlaavg-cifar10").run_config()
    settings = Settings(data_root=str(tmp_path))
    expected = needs("cifar10", str(tmp_path), download_allowed=False)
    assert missing_data(config, settings) == expected.replace(
        str(tmp_path.resolve()), "<data root>"
    )
    assert "data.download" not in expected  # this server downloads nothing
    for name in EXPECTED_FILES["cifar10"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).touch()
    assert missing_data(config, settings) is None
    assert missing_data(get_preset("cafed-synthetic").run_config(), settings) is None


def test_a_reproduction_reads_the_root_it_is_given(
    client: TestClient, api_data_root: Path, db_url: str
) -> None:
    folder = f"held-{db_url.split(':')[0]}"  # one per database: the data root is shared
    before = client.get("/api/experiments").json()["count"]
    outside = client.post("/api/presets/cafed-mnist/reproduce", json={"root": "/etc"})
    empty = client.post("/api/presets/cafed-mnist/reproduce", json={"root": "nothing/here"})
    write_tiny_mnist(api_data_root / folder, 60, 20)
    held = client.post(
        "/api/presets/cafed-mnist/reproduce",
        json={"root": str(api_data_root / folder), "seeds": [0]},
    )

    [error] = outside.json()["detail"]
    assert (outside.status_code, error["loc"]) == (422, ["body", "root"])
    assert error["msg"] == f"'/etc' is not inside the data root {api_data_root}: {RULE}"
    [error] = empty.json()["detail"]
    assert (error["loc"], error["type"]) == (["body", "root"], "data_missing")
    assert "under <data root>/nothing/here (data.root" in error["msg"]
    assert held.status_code == 201, held.text
    runs = client.get("/api/runs", params={"experiment_id": held.json()["id"]}).json()["data"]
    configs = [client.get(f"/api/runs/{r['id']}").json()["config"] for r in runs]
    assert len(configs) == 4 and {c["data"]["root"] for c in configs} == {folder}
    assert client.delete(f"/api/experiments/{held.json()['id']}").status_code == 204
    assert client.get("/api/experiments").json()["count"] == before
