"""Schemathesis against a real `fedwatch serve` on a fresh SQLite database: every operation
of the OpenAPI schema, every check (settings in schemathesis.toml); then bodies nested
deep, widened by thousands of keys and holding huge numbers; then path segments no file
can have (NUL, long names) on every open route, and tokens no header should hold. Any
server error or schema violation fails. Run by `make fuzz`, not by a plain `pytest`
(marker `fuzz`)."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.api.helpers import FINAL, example1
from tests.eventually import eventually
from tests.frontend.conftest import REPO, serve

pytestmark = [pytest.mark.fuzz, pytest.mark.slow]

# schemathesis.toml bounds the examples per operation; this bounds the whole run, which
# takes about 7 min on a busy 2-core machine and ran past 8 min under a load of 30: a
# hang is caught well inside the Makefile's --timeout 1800 all the same.
TIME_LIMIT_S = 1200
# The runs that the fuzzed POSTs submit execute one at a time, on one thread, in at most
# 512 MB (larger ones are refused or capped); those still queued when the fuzz ends are
# dropped with the server's database. A dataset missing here is not downloaded: the proxy
# refuses at once, so nothing leaves this machine.
SERVER_ENV = {
    "FEDWATCH_EMBEDDED_CONCURRENCY": "1",
    "FEDWATCH_RUN_THREADS": "1",
    "FEDWATCH_MAX_RUN_MEMORY_MB": "512",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "127.0.0.1,localhost",
}
# Recorded before the fuzz starts, so that operations on a run or a comparison also reach
# stored rounds: runs 1-4 of experiment 1 (schemathesis.toml offers these ids).
RECORDED = {
    "name": "recorded",
    "base": example1(30),
    "grid": {"algorithm.name": ["fedavg", "mifa"]},
    "seeds": [0, 1],
}


def record_runs(url: str, timeout: float = 120) -> None:
    experiment = httpx.post(f"{url}/api/experiments", json=RECORDED).raise_for_status().json()
    assert (experiment["id"], experiment["run_ids"]) == (1, [1, 2, 3, 4])

    def finished() -> bool:
        runs = [httpx.get(f"{url}/api/runs/{i}").json() for i in experiment["run_ids"]]
        return all(run["status"] in FINAL for run in runs)

    eventually(finished, f"runs {experiment['run_ids']} finishing", timeout, every=0.2)


def test_schemathesis_finds_no_server_error_and_no_schema_violation(tmp_path: Path) -> None:
    st = shutil.which("st", path=str(Path(sys.executable).parent))
    if st is None:
        pytest.fail("schemathesis is not installed (pip install -e '.[dev]')")
    with serve(tmp_path, **SERVER_ENV) as url:
        record_runs(url)
        command = [st, "--no-color", "--config-file", str(REPO / "schemathesis.toml"), "run"]
        command.append(f"{url}/openapi.json")
        started = time.monotonic()
        try:
            result = subprocess.run(command, cwd=tmp_path, timeout=TIME_LIMIT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"schemathesis did not finish in {TIME_LIMIT_S} s")
    print(f"schemathesis took {time.monotonic() - started:.0f} s")
    assert result.returncode == 0, "schemathesis found failures (its report is above)"


# Bodies past what Schemathesis generates from the schema: nested past any parser's
# comfort, with tens of thousands of keys, or holding numbers near the float range and
# integers past 64 bits (Schemathesis found none of the 500s these gave). Each operation
# with a body gets `SHAPED` valid bodies reshaped each way, at a place drawn among its
# objects, free-form ones included; then every read of the runs they made. Checks: no
# server error, and status, type and body as documented.
SHAPED = 12
SHAPES = [
    *(("deep", depth) for depth in (33, 120, 600, 5000)),  # 5000: past Python's parser (a 400)
    *(("wide", width) for width in (150, 5_000, 60_000)),
    ("huge", 0),  # every float near the float range
    ("long", 0),  # every integer past 53 or 64 bits
]
HUGE = (1e300, -1e300, 1.7976931348623157e308, -1.7976931348623157e308, 5e-324, -1e-300)
# Weights are stored as float32: the ends of its range, and what rounds to 0 in it.
HUGE_WEIGHTS = (3.4028234663852886e38, -3.4028234663852886e38, 5e-324, -1e-300, 1e-45)
LONG = (2**53 + 1, 2**63, -(2**63), 10**30)


def _shaped(kind: str, size: int, body: Any, data: Any) -> str:
    """`body` as JSON text, reshaped: a value nested `size` levels deep or an object
    widened by `size` keys (at a place drawn among its objects), or every float replaced
    by one of `HUGE`, or every integer by one of `LONG`."""
    if kind in ("huge", "long"):
        kept, values = (int, HUGE) if kind == "huge" else (float, LONG)

        def swap(value: Any) -> Any:
            if isinstance(value, dict):
                return {k: swap(v) for k, v in value.items()}
            if isinstance(value, list):
                return [swap(v) for v in value]
            if isinstance(value, int | float) and not isinstance(value, bool | kept):
                return data.draw(st.sampled_from(values))
            return value

        return json.dumps(swap(body), allow_nan=False)
    holder = data.draw(st.sampled_from(_objects(body) or [{}]))
    if kind == "wide":
        holder.update({f"k{i}": i for i in range(size)})
        return json.dumps(body, separators=(",", ":"))
    holder[data.draw(st.sampled_from([*sorted(holder), "deep"]))] = "\x00DEEP\x00"
    opening, closing = data.draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
    deep = opening * size + "1" + closing * size
    return json.dumps(body).replace('"\\u0000DEEP\\u0000"', deep)


def _objects(value: Any) -> list[dict[str, Any]]:
    """Every JSON object in `value`, itself included."""
    if isinstance(value, list):
        return [o for item in value for o in _objects(item)]
    if not isinstance(value, dict):
        return []
    return [value, *(o for item in value.values() for o in _objects(item))]


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _examples(count: int) -> Any:
    return settings(
        max_examples=count,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )


def _send_shaped(
    client: httpx.Client, operation: Any, ids: list[int], shape: tuple[str, int]
) -> int:
    """`SHAPED` bodies of `operation` reshaped one way, each response checked; how many."""
    sent = 0
    kind, size = shape

    @_examples(SHAPED)
    @given(case=operation.as_strategy(), run_id=st.sampled_from(ids), data=st.data())
    def send(case: Any, run_id: int, data: Any) -> None:
        nonlocal sent
        if "run_id" in (case.path_parameters or {}):
            case.path_parameters["run_id"] = run_id
        body = case.body if isinstance(case.body, dict | list) else {}  # optional body
        text = _shaped(kind, size, body, data)
        headers = {"Content-Type": "application/json"}
        response = client.request(case.method, case.formatted_path, content=text, headers=headers)
        case.validate_response(response, checks=CHECKS)
        sent += 1

    send()
    return sent


def _read(client: httpx.Client, operation: Any, ids: list[int]) -> None:
    """`SHAPED` reads of `operation` about the runs in `ids`, each response checked."""

    @_examples(SHAPED)
    @given(case=operation.as_strategy(), run_id=st.sampled_from(ids))
    def read(case: Any, run_id: int) -> None:
        for name in ("run_id", "experiment_id"):
            if name in (case.path_parameters or {}):
                case.path_parameters[name] = run_id
        if "runs" in (case.query or {}):
            case.query["runs"] = ",".join(map(str, ids))
        response = client.request(
            case.method, case.formatted_path, params=case.query, headers=case.headers
        )
        case.validate_response(response, checks=CHECKS)

    read()


def _huge_runs(client: httpx.Client, metrics: list[str]) -> list[int]:
    """`SHAPED` external runs whose every value is drawn from `HUGE` (a generated body
    rarely holds `test_acc` in two increasing rounds, which a summary needs), finished,
    then read: the run, its curves, its rounds, its CSV, the runs ranked, and it compared
    with the previous one. Drawn from a seeded generator, not Hypothesis: a server's
    state does not replay. Returns their ids."""
    rng = random.Random(0)
    made: list[int] = []
    body = {"source": "external", "name": "huge", "n_clients": 3, "experiment": "huge"}
    for run in range(SHAPED):
        run_id = client.post("/api/runs", json=body).raise_for_status().json()["id"]
        rounds = [
            {
                "round": t,
                "metrics": {name: rng.choice([*HUGE, 0.5]) for name in metrics},
                "selected": [0, 2],
                "weights": {"0": rng.choice(HUGE_WEIGHTS), "2": rng.choice(HUGE_WEIGHTS)},
                "wall_s": abs(rng.choice(HUGE)),
            }
            for t in range(6)
        ]
        past = [{"round": 0, "weights": {"0": 1e300}}]  # no float32 holds it: refused
        refused = client.post(f"/api/runs/{run_id}/rounds", json={"rounds": past})
        assert refused.status_code == 422, refused.text
        assert refused.json()["detail"][0]["loc"] == ["body", "rounds", 0, "weights", "0"]
        requests = [
            ("POST", f"/api/runs/{run_id}/rounds", {"rounds": rounds}),
            ("POST", f"/api/runs/{run_id}/finish", {"status": ["succeeded", "failed"][run % 2]}),
            ("GET", f"/api/runs/{run_id}", None),
            ("GET", f"/api/runs/{run_id}/metrics", None),
            ("GET", f"/api/runs/{run_id}/rounds", None),
            ("GET", f"/api/runs/{run_id}/export.csv", None),
            ("GET", f"/api/runs/{run_id}/staleness", None),
            ("GET", "/api/runs?rank_by=best_test_acc", None),
            ("GET", f"/api/compare?runs={run_id},{made[-1] if made else run_id}", None),
        ]
        for method, path, sent in requests:
            response = client.request(method, path, json=sent)
            assert response.status_code < 500, (method, path, sent, response.text)
        made.append(run_id)
    return made


def test_deep_wide_and_huge_bodies_give_no_server_error(tmp_path: Path) -> None:
    with serve(tmp_path, **SERVER_ENV) as url, httpx.Client(base_url=url, timeout=60) as client:
        record_runs(url)
        external = {"source": "external", "name": "x", "n_clients": 4, "experiment": "fuzz"}
        ids = [1, 2, *(client.post("/api/runs", json=external).json()["id"] for _ in range(3))]
        schema = schemathesis.openapi.from_url(f"{url}/openapi.json")
        operations = [r.ok() for r in schema.get_all_operations() if isinstance(r, Ok)]
        writes = [o for o in operations if o.get_body_for_media_type("application/json")]
        writes.sort(key=lambda o: o.path.endswith("/finish"))  # the runs' rounds first
        shaped = sum(
            _send_shaped(client, operation, ids, shape) for operation in writes for shape in SHAPES
        )
        catalogue = client.get("/api/metrics/catalog").json()
        metrics = [m["name"] for m in catalogue if m["kind"] == "round" and m["name"] != "wall_s"]
        ids += _huge_runs(client, metrics)
        # Every read of what those bodies stored: huge metrics, summaries, configs.
        for operation in operations:
            if operation.method.upper() == "GET" and not operation.path.endswith("/events"):
                _read(client, operation, ids)
    print(f"{shaped} reshaped bodies")
    assert shaped >= SHAPED * len(SHAPES)


# Path segments no file can have, in every path parameter of the open routes (every GET of
# the schema, and the manual's and the front end's files, which it does not list): the NUL
# character, a name longer than a file name may be (255 bytes: errno 36), one of two-byte
# characters, a path past PATH_MAX of short parts. Each drawn segment adds a NUL or a
# long name to text Hypothesis draws. Before, the manual's and the front end's were 500s.
SEGMENTS = [
    "%00",
    "a%00b",
    "a" * 300,
    "%C3%A9" * 200,
    "a" * 5000,
    "%00" + "b" * 300,
]
CATCH_ALL = ["d/" * 2100 + "f", "a/" * 10 + "%00/x", "v-0123456789ab/" + "a" * 300]
FILE_ROUTES = ["/manual/{path}", "/static/{path}"]
# Tokens no header should hold, as a client may send them (bytes, Latin-1 or UTF-8):
# before, a non-ASCII one was a 500 (a TypeError comparing it).
TOKEN = "s3cret"
HOSTILE_TOKENS = [b"Bearer s\xe9cret", "Bearer sécret".encode(), b"Bearer \xff\xfe", b"Bearer"]


def _segments() -> Any:
    drawn = st.text(min_size=1, max_size=400).map(lambda s: s + "\x00")
    long = st.text(alphabet="aé☃", min_size=256, max_size=2000)
    return st.one_of(st.sampled_from(SEGMENTS), drawn, long)


def _send_segments(client: httpx.Client, template: str) -> int:
    """`SHAPED` drawn segments in each path parameter of `template`, each response
    checked; how many."""
    sent = 0

    @_examples(SHAPED)
    @given(segment=_segments())
    def send(segment: str) -> None:
        nonlocal sent
        path = re.sub(r"\{[^}]+\}", lambda _: quote(segment, safe=""), template)
        response = client.get(path)
        assert response.status_code < 500, (template, segment, response.text)
        sent += 1

    send()
    return sent


def test_long_and_nul_path_segments_give_no_server_error(tmp_path: Path) -> None:
    manual = tmp_path / "manual"
    manual.mkdir()
    (manual / "index.html").write_text("<!doctype html><title>manual</title>")
    (manual / "404.html").write_text("<!doctype html><title>not found</title>")
    env = {**SERVER_ENV, "FEDWATCH_MANUAL_DIR": str(manual), "FEDWATCH_API_TOKEN": TOKEN}
    with serve(tmp_path, **env) as url, httpx.Client(base_url=url, timeout=60) as client:
        paths = client.get("/openapi.json").json()["paths"]
        templates = [p for p, ops in paths.items() if "get" in ops and "{" in p] + FILE_ROUTES
        sent = 0
        for template in templates:
            fixed = [*SEGMENTS, *(CATCH_ALL if template in FILE_ROUTES else [])]
            for segment in fixed:
                response = client.get(re.sub(r"\{[^}]+\}", segment, template))
                assert response.status_code < 500, (template, segment, response.text)
                sent += 1

            sent += _send_segments(client, template)
        for root in ["a" * 300, "é" * 200, "a/" * 2100, "x\x00"]:
            response = client.get("/api/datasets/mnist", params={"root": root})
            assert response.status_code == 422, (root, response.text)
            sent += 1
        external = {"source": "external", "name": "token", "n_clients": 2}
        for token in HOSTILE_TOKENS:
            response = client.post("/api/runs", json=external, headers={b"Authorization": token})
            assert response.status_code == 401, (token, response.text)
            sent += 1
    print(f"{sent} requests with long and NUL path segments")
    assert sent >= len(templates) * (len(SEGMENTS) + SHAPED)
