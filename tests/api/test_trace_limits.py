"""A FedScale file is sized before it is expanded, and its values checked against the
clock's range, at admission: a small file that shares one list among every client, a
number past the float range and a time the clock cannot take are 422s that name the
file and the value, and none of them costs the API its memory."""

from __future__ import annotations

import math
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.test_simulated_time import runs, timed
from worker.engine.system.unpickle import MAX_VALUES

SHARED_SESSIONS, SHARING_CLIENTS = 20_000, 2_000
# What reading the refused file may cost the API: the file's own objects (a list of
# 20 000 floats, 2 000 dicts) and the sizing. Copying its sessions took 5 GB.
BUDGET_MB = 100


def peak_growth_mb(call: Any) -> tuple[Any, float]:
    """`call()`, and how far this process's peak resident memory rose above its
    resident memory before it (Linux: the peak is reset first, `clear_refs` 5)."""
    Path("/proc/self/clear_refs").write_text("5")
    before = _status_kb("VmRSS")
    result = call()
    return result, (_status_kb("VmHWM") - before) / 1024


def _status_kb(field: str) -> int:
    found = re.search(rf"^{field}:\s+(\d+) kB$", Path("/proc/self/status").read_text(), re.M)
    assert found, field
    return int(found.group(1))


def shared_trace() -> dict[int, dict[str, Any]]:
    active = [float(10 * i) for i in range(SHARED_SESSIONS)]
    inactive = [t + 5.0 for t in active]
    entry = {"active": active, "inactive": inactive, "finish_time": 1e6}
    return {client: entry for client in range(SHARING_CLIENTS)}  # the same lists, shared


def post(client: TestClient, **fedscale: Any) -> Any:
    config = timed(kind="fedscale", fedscale=fedscale)
    return client.post("/api/runs", json={"config": config})


def test_a_trace_that_shares_one_list_among_its_clients_is_refused_in_little_memory(
    client: TestClient, api_data_root: Path
) -> None:
    path = api_data_root / "shared.pkl"
    path.write_bytes(pickle.dumps(shared_trace()))
    assert path.stat().st_size < 500_000  # 0.4 MB
    before = runs(client)

    response, growth = peak_growth_mb(lambda: post(client, trace_file="shared.pkl"))

    # Before: 201 after the API's memory had grown by gigabytes.
    assert response.status_code == 422, response.text
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "config", "system", "fedscale", "trace_file"]
    values = 1 + SHARING_CLIENTS * (2 + 3 + 2 * (1 + SHARED_SESSIONS) + 1)
    assert error["msg"] == (
        f"file 'shared.pkl': holds {values} values once the lists and dicts it shares are "
        f"copied, more than the {MAX_VALUES} a data file may hold"
    )
    assert growth < BUDGET_MB, f"{growth:.0f} MB"
    assert runs(client) == before


def device(computation: Any, communication: Any = 8.0) -> dict[int, dict[str, Any]]:
    return {1: {"computation": computation, "communication": communication}}


def trace(active: Any = 1.0, inactive: Any = 2.0, finish_time: Any = 100.0) -> Any:
    return {1: {"active": [active], "inactive": [inactive], "finish_time": finish_time}}


@pytest.mark.parametrize(
    ("field", "table", "msg"),
    [
        # Before: a 500 (OverflowError: int too large to convert to float).
        (
            "device_file",
            device(2**100000),
            "client 1 has computation an integer of 100001 bits, outside [2.22507e-308, 1e+15]",
        ),
        ("trace_file", trace(inactive=2**1100), "client 1 has an 'inactive' time of an integer"),
        # Before: accepted, and the run ended at chance accuracy with a NaN warning.
        ("device_file", device(math.inf), "client 1 has computation inf, outside"),
        ("device_file", device(5.0, 5e-324), "client 1 has communication 4.94066e-324, outside"),
        ("trace_file", trace(finish_time=5e-324), "has finish_time 4.94066e-324, outside [1e-06,"),
        ("trace_file", trace(active=math.inf, inactive=math.inf), "'active' time of inf"),
    ],
)
def test_a_value_past_the_float_or_the_clock_is_422_naming_it(
    client: TestClient, api_data_root: Path, field: str, table: Any, msg: str
) -> None:
    (api_data_root / "range.pkl").write_bytes(pickle.dumps(table))
    before = runs(client)

    response = post(client, **{field: "range.pkl"})

    assert response.status_code == 422, response.text
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "config", "system", "fedscale", field]
    assert error["msg"].startswith("file 'range.pkl': ")
    assert msg in error["msg"]
    assert runs(client) == before


def test_a_compute_factor_or_a_deadline_outside_the_clock_is_422(
    client: TestClient, api_data_root: Path
) -> None:
    (api_data_root / "speeds.pkl").write_bytes(pickle.dumps(device(150.0)))
    before = runs(client)
    # Before: both accepted, and their runs ended at chance accuracy with a NaN warning.
    factor = post(client, device_file="speeds.pkl", compute_factor=1e308)
    assert factor.status_code == 422, factor.text
    assert factor.json()["detail"] == [
        {
            "loc": ["body", "config", "system", "fedscale", "compute_factor"],
            "msg": "1e+308 times the slowest computation of its device file (150 ms) takes a "
            "sample past 1e+12 s",
            "type": "value_error",
        }
    ]
    config = timed(kind="fedscale")
    config["round"]["deadline_s"] = 5e-324
    deadline = client.post("/api/runs", json={"config": config})
    assert deadline.status_code == 422, deadline.text
    [error] = deadline.json()["detail"]
    assert error["loc"] == ["body", "config", "round", "deadline_s"]
    assert error["msg"] == "Input should be greater than or equal to 0.000001"
    assert runs(client) == before
