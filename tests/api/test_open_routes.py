"""The routes anyone may call answer a name that no file can have (a NUL, a part longer
than a file name, a path past the longest one), a root or file of a run too long for a
path field, and a token that is not ASCII, with a 4xx: each was a 500."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from tests.api.helpers import embedded_settings, example1

LONG = "a" * 300  # a file name may have 255 bytes (errno 36 past them)
WIDE = "é" * 200  # 200 characters, 400 bytes
DEEP = "d/" * 2100  # each part short, the whole past PATH_MAX (4096 bytes)
TOKEN = "sécret"
RIGHT = {"Authorization": f"Bearer {TOKEN}".encode()}  # as a client sends it: UTF-8


@pytest.fixture(scope="module")
def served(
    db_url: str, api_data_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    manual = tmp_path_factory.mktemp("manual")
    (manual / "index.html").write_text("<!doctype html><title>manual</title>")
    settings = embedded_settings(
        db_url, data_root=str(api_data_root), manual_dir=manual, api_token=TOKEN
    )
    with TestClient(create_app(settings)) as client:
        yield client


@pytest.mark.parametrize(
    "path",
    [
        "/manual/%00",
        "/manual/a%00b",
        "/static/%00",
        f"/manual/{LONG}",
        f"/static/{LONG}",
        f"/static/v-0123456789ab/{LONG}",
        f"/manual/{WIDE}",
        f"/static/js/{WIDE}",
        f"/manual/{DEEP}",
        f"/static/{DEEP}",
    ],
)
def test_names_no_file_can_have_are_404(served: TestClient, path: str) -> None:
    # Before: 500 (ValueError: embedded null byte; OSError: File name too long).
    response = served.get(path)
    assert response.status_code == 404, response.text
    assert served.head(path).status_code == 404


def test_the_manual_and_the_front_end_are_still_served(served: TestClient) -> None:
    assert served.get("/manual/").status_code == 200
    assert served.get("/static/js/app.js").status_code == 200


def errors(response: Any) -> list[tuple[list[Any], str]]:
    return [(e["loc"], e["msg"]) for e in response.json()["detail"]]


def test_a_dataset_root_too_long_for_a_path_is_422(served: TestClient) -> None:
    response = served.get("/api/datasets/mnist", params={"root": LONG})
    too_long = "String should have at most 255 characters"
    assert (response.status_code, errors(response)) == (422, [(["query", "root"], too_long)])
    response = served.get("/api/datasets/mnist", params={"root": WIDE})
    part = "has a part of 400 bytes, longer than a file name may be (255)"
    assert (response.status_code, errors(response)) == (
        422,
        [(["query", "root"], f"{WIDE[:40]!r}… {part}")],
    )


def config_with(**fedscale: str) -> dict[str, Any]:
    """example1 with a FedScale system model of these files."""
    config = example1(3)
    config["system"] = {**config["system"], "kind": "fedscale"}
    config["system"]["fedscale"] = {**config["system"].get("fedscale", {}), **fedscale}
    return config


def with_root(root: str) -> dict[str, Any]:
    config = example1(3)
    config["data"] = {**config["data"], "root": root}
    return config


FILE = ["system", "fedscale"]


@pytest.mark.parametrize(
    ("config", "loc", "msg"),
    [
        (with_root(LONG), ["data", "root"], "String should have at most 255 characters"),
        (config_with(device_file=LONG), [*FILE, "device_file"], "at most 255 characters"),
        (config_with(trace_file=LONG), [*FILE, "trace_file"], "at most 255 characters"),
        (with_root(WIDE), ["data", "root"], "has a part of 400 bytes"),
        (config_with(device_file=WIDE), [*FILE, "device_file"], "has a part of 400 bytes"),
    ],
)
def test_a_run_whose_files_no_path_can_name_is_422(
    served: TestClient, config: dict[str, Any], loc: list[str], msg: str
) -> None:
    # Before: 500 (OSError: File name too long), or stored and failed at its start.
    before = served.get("/api/runs").json()["count"]
    response = served.post("/api/runs", json={"config": config}, headers=RIGHT)
    assert response.status_code == 422, response.text
    ((found, text),) = errors(response)
    assert found == ["body", "config", *loc]
    assert msg in text
    assert served.get("/api/runs").json()["count"] == before


def test_a_token_is_compared_as_bytes(served: TestClient) -> None:
    external = {"source": "external", "name": "token", "n_clients": 2}
    # UTF-8, as the test client sends any header (a server gets other bytes as sent)
    for wrong in ["Bearer ☃", "Bearer sécrét", "Bearer secret", "Bearer sécret "]:
        # Before: 500 (TypeError: comparing strings with non-ASCII characters).
        header = {"Authorization": wrong.encode()}
        response = served.post("/api/runs", json=external, headers=header)
        assert response.status_code == 401, wrong
        assert response.headers["WWW-Authenticate"] == "Bearer"
    assert served.post("/api/runs", json=external, headers=RIGHT).status_code == 201


def test_the_schema_bounds_every_path_field(served: TestClient) -> None:
    """The form reads `maxLength` from the schema, so it refuses what the server would."""
    defs = served.get("/api/schema/run-config").json()["$defs"]
    bounded = {
        (name, field): spec.get("maxLength")
        for name, model in defs.items()
        for field, spec in model.get("properties", {}).items()
        if field in ("root", "device_file", "trace_file")
    }
    assert bounded == {
        ("DataConfig", "root"): 255,
        ("FedScaleParams", "device_file"): 255,
        ("FedScaleParams", "trace_file"): 255,
    }
