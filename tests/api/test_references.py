"""Reference lines: a preset declares them, a run whose data and availability are the
preset's carries them, whatever its name, algorithm or rounds."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.helpers import example1, submit

EXAMPLE1 = {
    "param": [
        {"value": 0.5, "label": "FedAvg's limit 0.5"},
        {"value": 0.0, "label": "optimum x* = 0"},
    ]
}


def test_presets_and_runs_carry_their_reference_lines(client: TestClient) -> None:
    presets = {p["name"]: p["references"] for p in client.get("/api/presets").json()}
    assert presets["example1"] == EXAMPLE1 and presets["cafed-synthetic"] == {}
    assert client.get("/api/presets/example1").json()["references"] == EXAMPLE1

    run = submit(client, example1(3, algorithm__name="mifa"))
    assert run["references"] == EXAMPLE1
    renamed = client.patch(f"/api/runs/{run['id']}", json={"name": "renamed"}).json()
    assert renamed["references"] == EXAMPLE1
    assert client.get(f"/api/runs/{run['id']}").json()["references"] == EXAMPLE1
    other = submit(client, example1(3, availability__kind="always"))
    assert client.get(f"/api/runs/{other['id']}").json()["references"] == {}
    listed = client.get("/api/runs").json()["data"]
    assert all("references" not in r for r in listed)  # list items carry no config
