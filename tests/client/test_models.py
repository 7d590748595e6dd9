"""Runs' final models through a real `fedwatch serve`: a simulated run's downloaded model
gives its final test accuracy; an external run attaches one through the SDK, within the
server's cap; a model goes with its run."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import torch

from fedwatch.client import FedWatch
from fedwatch.spool import read_spool, sync
from fedwatch.tensorfile import ModelFileError
from fedwatch.transport import Transport
from tests.api.helpers import submit, wait_final
from tests.client.conftest import Server
from tests.engine.test_hostile_model import claiming
from worker.engine import run_config_for
from worker.engine.components import current
from worker.engine.data import load_data
from worker.presets import get_preset

pytestmark = pytest.mark.slow

CAP = 200_000  # bytes: FEDWATCH_MAX_MODEL_BYTES of these tests' server


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[Server]:
    running = Server(
        tmp_path,
        {"FEDWATCH_API_TOKEN": "", "FEDWATCH_EMBEDDED_CONCURRENCY": "1",
         "FEDWATCH_MAX_MODEL_BYTES": str(CAP)},
    )  # fmt: skip
    running.start()
    yield running
    if running.process is not None:
        running.kill()


def test_a_simulated_run_s_model_gives_its_final_accuracy(capped: Server, tmp_path: Path) -> None:
    sets = ["data.dataset=digits", "model.name=mlp", "rounds=4", "device=cpu"]
    config = get_preset("cafed-mnist").run_config(sets).model_dump(mode="json")
    with httpx.Client(base_url=capped.url, timeout=30) as client:
        run = wait_final(client, submit(client, config)["id"])
        assert run["status"] == "succeeded", run["error"]
        shown = client.get(f"/api/runs/{run['id']}").json()
    fw = FedWatch(capped.url, spool_dir=tmp_path / "spool")

    module = fw.run(run["id"]).model()

    assert isinstance(module, torch.nn.Module) and not module.training
    assert shown["model_bytes"] == len(fw.run(run["id"]).model_file())
    data = load_data(run_config_for(current()).model_validate(config).data, config["seed"])
    with torch.no_grad():
        predicted = module(data.inputs(data.x_test)).argmax(dim=1)
    accuracy = float((predicted == data.y_test).float().mean())
    assert accuracy == pytest.approx(run["summary"]["final_test_acc"], abs=1e-6)
    assert fw.run(run["id"]).state_dict().keys() == module.state_dict().keys()


def test_an_external_run_attaches_its_model(capped: Server, tmp_path: Path) -> None:
    net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    fw = FedWatch(capped.url, spool_dir=tmp_path / "spool", flush_s=0.05)
    with fw.start_run("with-model", {"lr": 0.1}, n_clients=2) as run:
        run.log_round(0, {"test_acc": 0.5})
        path = run.log_model(net.state_dict())
    assert run.finished and run.id is not None and path.exists()

    got = fw.run(run.id).model()  # no architecture in an external file: the state dict

    assert isinstance(got, dict) and got.keys() == net.state_dict().keys()
    for name, tensor in net.state_dict().items():
        assert torch.equal(got[name], tensor)
    with httpx.Client(base_url=capped.url) as client:
        assert client.delete(f"/api/runs/{run.id}").status_code == 204
        gone = client.get(f"/api/runs/{run.id}/model")
    assert gone.status_code == 404


def test_a_model_past_the_cap_is_a_413_and_stays_in_the_spool(
    capped: Server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    big = {"w": torch.zeros(CAP // 4 + 1)}  # past the cap by its header alone
    fw = FedWatch(capped.url, spool_dir=tmp_path / "spool", flush_s=0.05)
    warnings = caplog.at_level(logging.WARNING, logger="fedwatch.client")
    with warnings, fw.start_run("too-big", {}, n_clients=1) as run:
        run.log_round(0, {"test_acc": 0.5})
        path = run.log_model(big)
    assert run.finished  # the run itself is stored and finished
    assert "FEDWATCH_MAX_MODEL_BYTES" in caplog.text and str(path) in caplog.text
    with httpx.Client(base_url=capped.url) as client:
        refused = client.post(f"/api/runs/{run.id}/model", content=path.read_bytes(),
                              headers={"Content-Type": "application/octet-stream"})  # fmt: skip
        missing = client.get(f"/api/runs/{run.id}/model")
    assert refused.status_code == 413
    assert refused.json()["detail"] == (
        f"request body larger than {CAP} bytes (FEDWATCH_MAX_MODEL_BYTES)"
    )
    assert missing.status_code == 404 and "log_model" in missing.json()["detail"]
    assert read_spool(run.spool_path).model == path


def test_fedwatch_sync_uploads_a_spooled_model(capped: Server, tmp_path: Path) -> None:
    offline = FedWatch("http://127.0.0.1:9", spool_dir=tmp_path / "spool", finish_timeout_s=0.2)
    run = offline.start_run("offline", {}, n_clients=1)
    run.log_round(0, {"test_acc": 0.5})
    run.log_model({"w": torch.ones(3)})
    assert not run.finish()

    run_id, rounds, stored = sync(run.spool_path, Transport(capped.url, None, 30))

    assert (rounds, stored) == (1, 1)
    got = FedWatch(capped.url, spool_dir=tmp_path / "other").run(run_id).state_dict()
    assert got["w"].tolist() == [1.0, 1.0, 1.0]


def test_bad_model_files_are_refused(capped: Server) -> None:
    sets = ["rounds=2", "device=cpu"]
    config = get_preset("cafed-synthetic").run_config(sets).model_dump(mode="json")
    octet = {"Content-Type": "application/octet-stream"}
    with httpx.Client(base_url=capped.url, timeout=30) as client:
        external = client.post("/api/runs", json={"source": "external", "name": "x",
                                                  "config": {}, "n_clients": 1}).json()  # fmt: skip
        garbage = client.post(f"/api/runs/{external['id']}/model", content=b"x" * 64,
                              headers=octet)  # fmt: skip
        simulated = submit(client, config)
        refused = client.post(f"/api/runs/{simulated['id']}/model", content=b"x", headers=octet)
        wait_final(client, simulated["id"])
    assert garbage.status_code == 422
    assert "not a safetensors file" in garbage.json()["detail"][0]["msg"]
    assert refused.status_code == 409 and "keeps its own model" in refused.json()["detail"]


def test_a_hostile_model_is_refused_by_the_sdk_and_an_unknown_dtype_at_upload(
    capped: Server, tmp_path: Path
) -> None:
    octet = {"Content-Type": "application/octet-stream"}
    header = b'{"w":{"dtype":"U32","shape":[2],"data_offsets":[0,8]}}'
    unknown = len(header).to_bytes(8, "little") + header + bytes(8)
    external = {"source": "external", "name": "x", "config": {}, "n_clients": 1}
    with httpx.Client(base_url=capped.url, timeout=30) as client:
        run_id = client.post("/api/runs", json=external).json()["id"]
        url = f"/api/runs/{run_id}/model"
        refused = client.post(url, content=unknown, headers=octet)
        stored = client.post(url, content=claiming(300, 200), headers=octet)
    fw = FedWatch(capped.url, spool_dir=tmp_path / "spool")

    assert refused.status_code == 422
    assert refused.json()["detail"][0]["msg"].startswith("tensor 'w': dtype 'U32' is not one of")
    assert stored.status_code == 201  # a safetensors file whose header is its body's
    mismatch = r"'net.1.weight' is \[2, 4\] in the file, \[300, 200\]"
    with pytest.raises(ModelFileError, match=mismatch):
        fw.run(run_id).model()
