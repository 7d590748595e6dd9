"""Input the database or JSON cannot hold is a 422 that names the field: integers past
the id columns, NaN and Infinity anywhere in a body, the NUL character, seeds that are
no integers, bodies nested too deep or holding thousands of errors."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient
from httpx import Response

from api.errors import SHOWN_ERRORS
from api.storable import MAX_DEPTH, TOO_DEEP
from tests.api.helpers import example1, submit, wait_final

PAST_INT64 = 2**63  # SQLite cannot bind it
PAST_INT32 = 2**31  # the largest id Postgres' Integer columns hold, plus one
FINITE = {"msg": "Input should be a finite number", "type": "finite_number"}
SHORT: dict[str, Any] = {"rounds": 2, "device": "cpu", "data": {"n_clients": 4}}
SHORT["algorithm"] = {"participation": 2}
JSON = {"Content-Type": "application/json"}


def locs(response: Response) -> list[list[Any]]:
    return [e["loc"] for e in response.json()["detail"]]


def counts(client: TestClient) -> tuple[int, int]:
    runs = client.get("/api/runs").json()["count"]
    return runs, client.get("/api/experiments").json()["count"]


def test_ids_offsets_and_rounds_past_the_database_are_422(client: TestClient) -> None:
    run_id = wait_final(client, submit(client, example1(3))["id"])["id"]
    requests = [
        ("GET", f"/api/runs/{PAST_INT64}", ["path", "run_id"]),
        ("GET", f"/api/runs/{PAST_INT32}", ["path", "run_id"]),
        ("POST", f"/api/runs/{PAST_INT64}/cancel", ["path", "run_id"]),
        ("POST", f"/api/runs/{PAST_INT64}/resume", ["path", "run_id"]),
        ("DELETE", f"/api/runs/{PAST_INT64}", ["path", "run_id"]),
        ("GET", f"/api/runs/{PAST_INT64}/staleness", ["path", "run_id"]),
        ("GET", f"/api/runs/{PAST_INT64}/events", ["path", "run_id"]),
        ("GET", f"/api/experiments/{PAST_INT64}", ["path", "experiment_id"]),
        ("GET", "/api/runs?offset=428902245752926240768", ["query", "offset"]),
        ("GET", f"/api/runs?experiment_id={PAST_INT64}", ["query", "experiment_id"]),
        ("GET", f"/api/experiments?offset={PAST_INT64}", ["query", "offset"]),
        ("GET", f"/api/runs/{run_id}/rounds?after={PAST_INT64}", ["query", "after"]),
        ("GET", f"/api/runs/{run_id}/metrics?start={PAST_INT64}", ["query", "start"]),
        ("GET", f"/api/runs/{run_id}/metrics?end={PAST_INT64}", ["query", "end"]),
    ]
    for method, path, loc in requests:
        response = client.request(method, path)
        assert (response.status_code, locs(response)) == (422, [loc]), path
    events = client.get(f"/api/runs/{run_id}/events", headers={"Last-Event-ID": str(PAST_INT64)})
    assert (events.status_code, locs(events)) == (422, [["header", "last-event-id"]])


def test_compared_run_ids_past_the_database_are_not_found(client: TestClient) -> None:
    response = client.get("/api/compare", params={"runs": str(PAST_INT32)})
    assert (response.status_code, response.json()) == (
        404,
        {"detail": f"run {PAST_INT32} not found"},
    )
    for runs in (str(PAST_INT64), "", "1,", "a,b"):
        response = client.get("/api/compare", params={"runs": runs})
        assert (response.status_code, locs(response)) == (422, [["query", "runs"]]), runs


def test_nan_and_infinity_are_422_wherever_they_are(client: TestClient) -> None:
    before = counts(client)
    bodies = [
        ("/api/runs", '{"config": {"algorithm": {"participation": Infinity}}}'),
        ("/api/runs", '{"config": {"client": {"lr": Infinity, "weight_decay": NaN}}}'),
        ("/api/runs", '{"config": {"data": {"n_clients": 2, '
         '"mean_estimation": {"means": [1, 1e999]}}}}'),
        # Free-form JSON: a base value that the grid replaces is stored all the same.
        ("/api/experiments", '{"name": "x", "base": {"client": {"lr": NaN}}, '
         '"grid": {"client.lr": [0.1, -Infinity]}}'),
    ]  # fmt: skip
    expected: list[list[list[str | int]]] = [
        [["body", "config", "algorithm", "participation"]],
        [["body", "config", "client", "lr"], ["body", "config", "client", "weight_decay"]],
        [["body", "config", "data", "mean_estimation", "means", 1]],
        [["body", "base", "client", "lr"], ["body", "grid", "client.lr", 1]],
    ]
    for (path, body), loc in zip(bodies, expected, strict=True):
        headers = {"Content-Type": "application/json"}
        response = client.post(path, content=body, headers=headers)
        assert response.status_code == 422, body
        assert response.json() == {"detail": [{"loc": at, **FINITE} for at in loc]}
    assert counts(client) == before


def test_experiment_seeds_are_integers_in_the_seed_range(client: TestClient) -> None:
    before = counts(client)
    for seeds in ([False], ["1"], [1.5], [-1], [PAST_INT32]):
        body = {"name": "seeds", "base": SHORT, "seeds": [0, *seeds]}
        response = client.post("/api/experiments", json=body)
        assert (response.status_code, locs(response)) == (422, [["body", "seeds", 1]]), seeds
    assert counts(client) == before
    created = client.post("/api/experiments", json={"name": "seeds", "base": SHORT, "seeds": [3.0]})
    assert created.status_code == 201  # 3.0 is the JSON integer 3
    (run_id,) = created.json()["run_ids"]
    assert wait_final(client, run_id)["seed"] == 3


def test_nul_characters_are_422_in_bodies_and_queries(client: TestClient) -> None:
    # Postgres text cannot hold U+0000: before, each of these was a 500 there.
    before = counts(client)
    bodies = [
        ("/api/runs", {"config": SHORT, "notes": "a\x00b"}, ["body", "notes"]),
        ("/api/runs", {"config": {**SHORT, "name": "\x00"}}, ["body", "config", "name"]),
        ("/api/experiments", {"name": "x\x00", "base": SHORT}, ["body", "name"]),
        (
            "/api/experiments",
            {"name": "x", "base": SHORT, "grid": {"name\x00": ["a"]}},
            ["body", "grid", "name\x00"],
        ),
    ]
    nul = {"msg": "Input should not contain the NUL character (U+0000)", "type": "string_nul"}
    for path, body, loc in bodies:
        response = client.post(path, json=body)
        assert response.status_code == 422, body
        assert response.json() == {"detail": [{"loc": loc, **nul}]}
    assert counts(client) == before
    run_id = wait_final(client, submit(client, example1(3))["id"])["id"]
    queries = [
        ("/api/runs", {"q": "a\x00"}, ["query", "q"]),
        ("/api/runs", {"algorithm": "\x00"}, ["query", "algorithm"]),
        (f"/api/runs/{run_id}/metrics", {"names": "param\x00"}, ["query", "names"]),
        ("/api/compare", {"runs": str(run_id), "metric": "\x00"}, ["query", "metric"]),
    ]
    for path, params, loc in queries:
        response = client.get(path, params=params)
        assert (response.status_code, locs(response)) == (422, [loc]), params


def nested(depth: int) -> str:
    """A JSON value of `depth` levels of arrays: `[[...]]`."""
    return "[" * depth + "]" * depth


def test_bodies_nested_too_deep_are_422_and_store_nothing(client: TestClient) -> None:
    # Before: a 500 from a RecursionError (copying the config to run its cross-field
    # checks), or, for an external run's free-form config, a 500 after the run and its
    # experiment were stored, and every read that returns them a 500 from then on.
    before = counts(client)
    external = '{"source": "external", "name": "p", "experiment": "pe", "n_clients": 2, '
    bodies = [
        ("/api/runs", '{"config": {"name": ' + nested(500) + "}}", ["config", "name"]),
        ("/api/runs", external + '"config": {"a": ' + nested(300) + "}}", ["config", "a"]),
        ("/api/experiments", '{"name": "x", "base": {"a": ' + nested(500) + "}}", ["base", "a"]),
        ("/api/experiments", '{"name": "x", "grid": {"rounds": ' + nested(40) + "}}",
         ["grid", "rounds"]),
    ]  # fmt: skip
    for path, body, field in bodies:
        response = client.post(path, content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 422, response.text
        (error,) = response.json()["detail"]
        # the first array past the limit: the body and its fields are the levels above it
        depth = MAX_DEPTH - len(field)
        assert error == {"loc": ["body", *field, *[0] * depth], "msg": TOO_DEEP, "type": "too_deep"}
    assert counts(client) == before
    assert client.get("/api/experiments").status_code == 200
    # Deeper than Python's parser goes: refused as unparsable, not a server error.
    unparsable = client.post("/api/runs", content=nested(100_000), headers=JSON)
    assert unparsable.status_code == 400


def test_a_config_nested_to_the_limit_is_stored_and_read_back(client: TestClient) -> None:
    config = {"a": json.loads(nested(MAX_DEPTH - 2))}  # the body and the config hold it
    body = {"source": "external", "name": "deep", "experiment": "deep", "n_clients": 2}
    response = client.post("/api/runs", json=body | {"config": config})
    assert response.status_code == 201, response.text
    run = response.json()
    assert client.get(f"/api/runs/{run['id']}").json()["config"] == config
    assert client.get(f"/api/experiments/{run['experiment_id']}").status_code == 200
    assert client.get("/api/experiments").status_code == 200
    finished = client.post(f"/api/runs/{run['id']}/finish", json={"status": "succeeded"})
    assert finished.status_code == 200


def test_a_body_of_thousands_of_unknown_keys_gets_a_short_answer(client: TestClient) -> None:
    # Before: 90 000 errors, 8.9 MB, after 6-10 s of the event loop's time (the cross-field
    # pass compared every failed field with every field each check reads).
    keys = {f"k{i}": 1 for i in range(90_000)}
    body = json.dumps({"config": keys}, separators=(",", ":"))
    response = client.post("/api/runs", content=body, headers=JSON)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert len(detail) == SHOWN_ERRORS + 1 and len(response.content) < 20_000
    assert detail[0]["loc"] == ["body", "config", "k0"]
    assert detail[-1] == {
        "loc": ["body"],
        "msg": f"{90_000 - SHOWN_ERRORS} more errors, not listed",
        "type": "too_many_errors",
    }
