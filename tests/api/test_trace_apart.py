"""A FedScale file is read at admission in a process apart, under a memory cap: a file
that takes more memory to read than its size says is refused with a 422 naming it, and
the API's memory does not grow with it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from tests.api.helpers import embedded_settings
from tests.api.test_simulated_time import runs
from tests.api.test_trace_limits import peak_growth_mb, post

CAP_MB = 64
# Empty dicts, each one byte of pickle (EMPTY_DICT) and about 64 bytes once read: a 2 MB
# file takes some 130 MB, twice the cap. Each is one value, so the file is within the
# values a data file may hold (`unpickle.MAX_VALUES`): only reading it costs the memory.
DICTS = 2_000_000
# What the refused request may cost the API: its own objects, nothing of the file's.
BUDGET_MB = 30


@pytest.fixture(scope="module")
def client(db_url: str, api_data_root: Path) -> Iterator[TestClient]:
    settings = embedded_settings(db_url, data_root=str(api_data_root), max_file_read_mb=CAP_MB)
    with TestClient(create_app(settings)) as c:
        yield c


def test_a_trace_that_outgrows_the_cap_while_read_is_422_and_costs_the_api_nothing(
    client: TestClient, api_data_root: Path
) -> None:
    path = api_data_root / "dicts.pkl"
    path.write_bytes(b"\x80\x04(" + b"}" * DICTS + b"l.")  # PROTO 4, MARK, }..., LIST, STOP
    before = runs(client)

    response, growth = peak_growth_mb(lambda: post(client, trace_file="dicts.pkl"))

    # Before: read in the API's process, which grew by some 130 MB (by gigabytes with a
    # file of 1 GB, the largest admitted).
    assert response.status_code == 422, response.text
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "config", "system", "fedscale", "trace_file"]
    assert error["msg"] == (
        "file 'dicts.pkl': ran out of memory while it was read, past the 64 MiB this server "
        "gives reading system files (FEDWATCH_MAX_FILE_READ_MB)"
    )
    assert growth < BUDGET_MB, f"{growth:.0f} MB"
    assert runs(client) == before
