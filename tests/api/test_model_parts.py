"""A model file through the API on both databases: stored in parts and read back as
it was sent, with its length; its header checked before its body (a body shorter or
longer than the header says is a 422); replaced whole by a second upload."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from fastapi.testclient import TestClient

from db.run_models import PART_BYTES
from fedwatch import tensorfile

OCTET = {"Content-Type": tensorfile.MEDIA_TYPE}


def external(client: TestClient) -> int:
    body = {"source": "external", "name": "parts", "config": {}, "n_clients": 1}
    run_id: int = client.post("/api/runs", json=body).json()["id"]
    return run_id


def pieces(data: bytes, size: int) -> Iterator[bytes]:
    """`data` as a chunked body (no Content-Length) of `size`-byte chunks."""
    for at in range(0, len(data), size):
        yield data[at : at + size]


@pytest.mark.parametrize("chunked", [False, True])
def test_a_model_of_several_parts_comes_back_as_it_went(client: TestClient, chunked: bool) -> None:
    weights = np.arange(PART_BYTES * 5 // 8, dtype=np.float32)  # 2.5 parts
    data = tensorfile.dumps({"w": weights, "b": np.ones(3)})
    run_id = external(client)
    body = pieces(data, 65536) if chunked else data

    stored = client.post(f"/api/runs/{run_id}/model", content=body, headers=OCTET)
    got = client.get(f"/api/runs/{run_id}/model")

    assert stored.status_code == 201 and stored.json() == {"run_id": run_id, "size": len(data)}
    assert got.status_code == 200 and got.content == data
    assert got.headers["content-length"] == str(len(data))
    assert got.headers["content-disposition"].startswith(f'attachment; filename="run-{run_id}')
    assert client.get(f"/api/runs/{run_id}").json()["model_bytes"] == len(data)

    again = tensorfile.dumps({"w": np.zeros(2, np.float32)})
    assert client.post(f"/api/runs/{run_id}/model", content=again, headers=OCTET).is_success
    assert client.get(f"/api/runs/{run_id}/model").content == again


@pytest.mark.parametrize(
    ("cut", "problem"),
    [
        (-1, "tensor 'w': F32 of shape [4] is more than the file's body of 15 bytes"),
        (1, "the tensors hold 16 bytes, the file's body 17"),
    ],
)
def test_a_body_that_is_not_what_the_header_says_is_a_422(
    client: TestClient, cut: int, problem: str
) -> None:
    data = tensorfile.dumps({"w": np.zeros(4, np.float32)})  # a body of 16 bytes
    body = data[:cut] if cut < 0 else data + b"\0" * cut
    run_id = external(client)

    refused = client.post(f"/api/runs/{run_id}/model", content=body, headers=OCTET)

    assert refused.status_code == 422
    assert refused.json()["detail"][0]["msg"] == problem
    assert client.get(f"/api/runs/{run_id}/model").status_code == 404


def test_every_answer_about_the_run_gives_its_models_size(client: TestClient) -> None:
    data = tensorfile.dumps({"w": np.zeros(4, np.float32)})
    run_id = external(client)
    assert client.post(f"/api/runs/{run_id}/model", content=data, headers=OCTET).is_success

    edited = client.patch(f"/api/runs/{run_id}", json={"notes": "after the model"})
    finished = client.post(f"/api/runs/{run_id}/finish", json={"status": "succeeded"})

    assert edited.json()["model_bytes"] == len(data)  # the run page's Model button stays
    assert finished.json()["model_bytes"] == len(data)
    assert client.patch(f"/api/runs/{external(client)}", json={}).json()["model_bytes"] is None
