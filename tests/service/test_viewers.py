"""Many viewers of a running run, on a real embedded server: every stream gets every
round once, every poll is answered, and the run is not disturbed."""

from __future__ import annotations

import asyncio
import signal
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.api.helpers import example1, reference, submit, wait_final
from tests.service.servers import free_port, serve
from tests.service.test_worker import stored_rows

pytestmark = pytest.mark.service

STREAMS, POLLERS, ROUNDS = 40, 8, 2000


async def follow(client: httpx.AsyncClient, run_id: int) -> list[int]:
    """The round ids one viewer receives, until the stream ends."""
    ids: list[int] = []
    async with client.stream("GET", f"/api/runs/{run_id}/events") as response:
        assert response.status_code == 200
        async for line in response.aiter_lines():
            if line.startswith("id: "):
                ids.append(int(line[4:]))
    return ids


async def poll(client: httpx.AsyncClient, run_id: int, done: asyncio.Event) -> list[int]:
    """Status codes of a dashboard polling the run list and the run's curve."""
    codes = []
    while not done.is_set():
        for path in ("/api/runs", f"/api/runs/{run_id}/metrics?names=param&max_points=500"):
            codes.append((await client.get(path)).status_code)
        await asyncio.sleep(0.1)
    return codes


async def watch(base: str, run_id: int) -> tuple[list[list[int]], list[int]]:
    limits = httpx.Limits(max_connections=STREAMS + POLLERS)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        done = asyncio.Event()
        pollers = [asyncio.create_task(poll(client, run_id, done)) for _ in range(POLLERS)]
        streams = await asyncio.gather(*(follow(client, run_id) for _ in range(STREAMS)))
        done.set()
        codes = [code for codes in await asyncio.gather(*pollers) for code in codes]
    return streams, codes


def test_many_viewers_and_pollers_leave_the_run_alone(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = serve(f"sqlite:///{tmp_path / 'fedwatch.sqlite3'}", port, tmp_path / "serve.log")
    try:
        api = httpx.Client(base_url=base, timeout=10)
        config = example1(ROUNDS, algorithm__name="fedavg")
        run = submit(api, config)
        with ThreadPoolExecutor(1) as loop:  # its own event loop, whatever this thread runs
            streams, codes = loop.submit(asyncio.run, watch(base, run["id"])).result()
        done = wait_final(api, run["id"])
        rows = stored_rows(api, run["id"])
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
    assert all(ids == list(range(ROUNDS)) for ids in streams)
    assert codes and set(codes) == {200}
    assert done["status"] == "succeeded", done["error"]
    assert rows == reference(config)
