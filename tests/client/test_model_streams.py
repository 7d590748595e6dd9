"""A model file goes in and out of a real `fedwatch serve` a part at a time: the
server's memory (its peak RSS, VmHWM, reset before each transfer) grows by well under
the file's size for one 100 MB upload and for ten concurrent downloads of it, and a
transfer past FEDWATCH_MODEL_TRANSFERS gets a 503 with Retry-After at once."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import httpx
import numpy as np
import pytest

from fedwatch import tensorfile
from tests.client.conftest import Server
from tests.eventually import eventually

pytestmark = pytest.mark.slow

TRANSFERS = 10  # FEDWATCH_MODEL_TRANSFERS of these tests' server
MB = 1 << 20
OCTET = {"Content-Type": tensorfile.MEDIA_TYPE}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = {"FEDWATCH_API_TOKEN": "", "FEDWATCH_EMBEDDED_CONCURRENCY": "1",
           "FEDWATCH_MODEL_TRANSFERS": str(TRANSFERS)}  # fmt: skip
    running = Server(tmp_path_factory.mktemp("streams"), env)
    running.start()
    yield running
    running.kill()


@pytest.fixture(scope="module")
def model() -> bytes:
    """A 100 MB safetensors file whose bytes are not all alike."""
    weights = np.arange(25 * MB, dtype=np.float32).reshape(-1, 1024)
    return tensorfile.dumps({"w": weights, "b": np.ones(7, np.float64)})


def memory(pid: int) -> dict[str, int]:
    """The process's VmRSS and VmHWM (its peak RSS since the last reset), in bytes."""
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    fields = dict(line.split(":", 1) for line in lines)
    return {name: int(fields[name].split()[0]) * 1024 for name in ("VmRSS", "VmHWM")}


def reset_peak(pid: int) -> int:
    """Reset the process's peak RSS to its RSS now (Linux: `5` to clear_refs); that RSS."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")
    return memory(pid)["VmRSS"]


def external_run(client: httpx.Client) -> int:
    body = {"source": "external", "name": "big", "config": {}, "n_clients": 1}
    run_id: int = client.post("/api/runs", json=body).json()["id"]
    return run_id


def download(url: str) -> tuple[int, str]:
    """Read the model as it comes (a part at a time): its length and SHA-256."""
    digest, size = hashlib.sha256(), 0
    with httpx.stream("GET", url, timeout=120) as response:
        response.raise_for_status()
        for chunk in response.iter_bytes():
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def test_an_upload_and_ten_downloads_of_100_mb_stay_in_a_few_mb(
    server: Server, model: bytes
) -> None:
    assert server.process is not None
    pid = server.process.pid
    with httpx.Client(base_url=server.url, timeout=120) as client:
        run_id = external_run(client)
        download(f"{server.url}/healthz")  # the server's first answers behind it
        before = reset_peak(pid)
        stored = client.post(f"/api/runs/{run_id}/model", content=model, headers=OCTET)
        upload_growth = memory(pid)["VmHWM"] - before
    assert stored.status_code == 201, stored.text
    assert stored.json() == {"run_id": run_id, "size": len(model)}

    url = f"{server.url}/api/runs/{run_id}/model"
    download(url)  # one first, so that what the first download sets up once is not counted
    before = reset_peak(pid)
    with ThreadPoolExecutor(TRANSFERS) as pool:
        got = list(pool.map(download, [url] * TRANSFERS))
    download_growth = memory(pid)["VmHWM"] - before

    expected = (len(model), hashlib.sha256(model).hexdigest())
    assert got == [expected] * TRANSFERS
    print(f"peak RSS growth: upload {upload_growth / MB:.1f} MB, "
          f"{TRANSFERS} downloads {download_growth / MB:.1f} MB")  # fmt: skip
    assert upload_growth < 200 * MB
    assert download_growth < 200 * MB


def test_a_transfer_past_the_limit_gets_a_503_at_once(server: Server) -> None:
    small = tensorfile.dumps({"w": np.zeros(4 * MB, np.float32)})  # 16 MB: past a socket's buffers
    with httpx.Client(base_url=server.url, timeout=60) as client:
        run_id = external_run(client)
        assert client.post(f"/api/runs/{run_id}/model", content=small, headers=OCTET).is_success
        url = f"/api/runs/{run_id}/model"
        with ExitStack() as held:  # downloads begun and not read: each holds its slot
            for _ in range(TRANSFERS):
                response = held.enter_context(client.stream("GET", url))
                assert response.status_code == 200
            refused = client.get(url)
            upload = client.post(url, content=small, headers=OCTET)
        for answer in (refused, upload):
            assert answer.status_code == 503, answer.text
            assert answer.headers["retry-after"] == "2"
            assert "FEDWATCH_MODEL_TRANSFERS" in answer.json()["detail"]
        # the held ones closed, their slots come back as the server finds them gone
        eventually(lambda: client.get(url).status_code == 200, f"{url} answering 200", every=0.1)
