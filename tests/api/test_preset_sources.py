"""The presets' published figures, with their sources and what differs, as the API
serves them (the same fields `fedwatch presets` prints)."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_presets_serve_their_published_figures_with_sources(client: TestClient) -> None:
    presets = {p["name"]: p for p in client.get("/api/presets").json()}

    niid = presets["niid-bench-cifar10"]
    assert niid["published"] == {
        "fedavg": {"max": 62.47},
        "scaffold": {"max": 68.08},
        "fednova": {"max": 63.89},
    }
    assert niid["source"].startswith("github.com/adap/flower, baselines/niid_bench/README.md")
    assert "augmentation" in niid["differs"]
    assert niid["published_text"] == "fedavg max 62.47 %; scaffold max 68.08 %; fednova max 63.89 %"
    assert presets["niid-bench-cifar10-100"]["published"]["fedprox"] == {"accuracy": 58.8}
    assert presets["leaf-femnist-accuracy"]["published"] == {"fedavg": {"accuracy": 74.72}}
    assert presets["fedml-shakespeare"]["published"] == {"fedavg": {"accuracy": 53.1}}
    assert presets["cafed-mnist"]["published"]["cafed"]["time_avg"] == 62.76
    assert (presets["cifar10-dirichlet"]["published"], presets["cifar10-dirichlet"]["source"]) == (
        {},
        "",
    )
    detail = client.get("/api/presets/fedml-shakespeare").json()
    assert detail["source"] == presets["fedml-shakespeare"]["source"]
    assert detail["config"]["rounds"] == 100
