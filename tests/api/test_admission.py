"""Runs whose estimated memory or work exceeds this server's limits are refused with a
422 naming the field that drives the estimate, and nothing is created; every preset
fits the default limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.admission import refusals
from api.main import create_app
from db.settings import Settings
from tests.api.helpers import embedded_settings, example1, submit, wait_final
from tests.engine.test_leaf import tiny_femnist, tiny_shakespeare
from tests.engine.test_resources import LONG_TRACE, MANY_CLIENTS, PERIODIC_TRACE, WIDE
from worker.presets import PRESETS

LIMIT = "exceeds this server's limit of 6.0 GiB (FEDWATCH_MAX_RUN_MEMORY_MB=6144)"


def counts(client: TestClient) -> tuple[int, int]:
    runs = client.get("/api/runs").json()["count"]
    return runs, client.get("/api/experiments").json()["count"]


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (WIDE, ["data", "synthetic_clustered", "dimension"]),
        (MANY_CLIENTS, ["data", "n_clients"]),
        (PERIODIC_TRACE, ["availability", "trace", "csv"]),
    ],
)
def test_a_run_over_the_memory_limit_is_refused(
    client: TestClient, config: dict[str, Any], field: list[str]
) -> None:
    before = counts(client)

    response = client.post("/api/runs", json={"config": config})

    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "config", *field]
    assert error["type"] == "memory_limit"
    assert error["msg"].startswith("estimated memory ") and LIMIT in error["msg"]
    assert counts(client) == before


def test_the_refusal_itemises_the_estimate(client: TestClient) -> None:
    response = client.post("/api/runs", json={"config": MANY_CLIENTS})

    msg = response.json()["detail"][0]["msg"]
    assert "fedlaavg's client memory: 1 × N × d = 1 × 100000 × 26002 floats: 9.7 GiB" in msg


def test_a_long_trace_is_cheap_and_runs(client: TestClient) -> None:
    config = {**LONG_TRACE, "rounds": 3, "device": "cpu"}

    done = wait_final(client, submit(client, config)["id"])

    assert (done["status"], done["error"], done["rounds_done"]) == ("succeeded", None, 3)


def test_a_sweep_with_a_cell_over_the_limit_creates_nothing(client: TestClient) -> None:
    before = counts(client)
    body = {
        "name": "too big",
        "base": {
            "model": {"name": "mlp", "mlp": {"hidden": 2000}},
            "algorithm": {"name": "fedlaavg"},
        },
        "grid": {"data.n_clients": [24, 100_000]},
        "seeds": [0, 1],
    }

    response = client.post("/api/experiments", json=body)

    assert response.status_code == 422
    errors = response.json()["detail"]
    assert [e["loc"] for e in errors] == [["body", "grid", "data.n_clients"]] * 2
    assert [e["msg"].split(": estimated memory")[0] for e in errors] == [
        "data.n_clients=100000, seed=0",
        "data.n_clients=100000, seed=1",
    ]
    assert counts(client) == before


def test_a_sweep_over_the_limit_in_its_base_blames_the_base(client: TestClient) -> None:
    body = {"name": "wide", "base": WIDE, "grid": {"algorithm.name": ["fedavg", "mifa"]}}

    response = client.post("/api/experiments", json=body)

    assert response.status_code == 422
    locs = [e["loc"] for e in response.json()["detail"]]
    assert locs == [["body", "base", "data", "synthetic_clustered", "dimension"]] * 2


def test_vmap_with_batch_norm_is_refused_at_submission(client: TestClient) -> None:
    config = {"data": {"dataset": "digits"}, "model": {"name": "resnet18"}, "backend": "vmap"}

    response = client.post("/api/runs", json={"config": config})

    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "config", "backend"]
    assert error["msg"] == "vmap cannot train models with buffers; use sequential"


def test_a_trace_that_does_not_parse_is_refused_at_submission(client: TestClient) -> None:
    config = {"availability": {"kind": "trace", "trace": {"csv": "0,0,5\n1,7,3"}}}

    response = client.post("/api/runs", json={"config": config})

    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "config", "availability", "trace", "csv"]
    assert error["msg"] == "line 2: end_round (3) must exceed start_round (7)"


def test_work_over_the_limit_is_refused(db_url: str) -> None:
    with TestClient(create_app(embedded_settings(db_url, max_run_gflop=1e-6))) as strict:
        before = counts(strict)

        response = strict.post("/api/runs", json={"config": example1(4000)})

        assert response.status_code == 422
        [error] = response.json()["detail"]
        assert (error["loc"], error["type"]) == (["body", "config", "rounds"], "work_limit")
        assert error["msg"].startswith("estimated work ")
        assert "(FEDWATCH_MAX_RUN_GFLOP=1e-06)" in error["msg"]
        assert counts(strict) == before


def test_a_compute_monster_of_tiny_steps_is_refused(client: TestClient) -> None:
    # Before: 201 (480 GFLOP of arithmetic), then not one round in 30 s.
    config = example1(4000, client__local_steps=1000000, client__unit="epochs")
    before = counts(client)

    response = client.post("/api/runs", json={"config": config})

    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert (error["loc"], error["type"]) == (
        ["body", "config", "client", "local_steps"],
        "work_limit",
    )
    assert "fixed cost of 40000000000 local steps" in error["msg"]
    assert counts(client) == before


def test_more_clients_than_samples_are_refused_at_submission(client: TestClient) -> None:
    # Before: 201, then failed at its start.
    config = example1(data__dataset="digits", model__name="linear")
    config["data"]["n_clients"] = 100000
    before = counts(client)

    response = client.post("/api/runs", json={"config": config})

    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "config", "data", "n_clients"]
    assert (
        error["msg"] == "100000 clients leave some without data (1437 samples); use fewer clients"
    )
    assert counts(client) == before


def test_resume_is_refused_over_the_limits_and_changes_nothing(
    client: TestClient, db_url: str
) -> None:
    config = {
        "rounds": 4,
        "device": "cpu",
        "data": {"dataset": "mnist", "root": "no-mnist", "n_clients": 10, "partition": "iid"},
        "model": {"name": "linear"},
    }
    failed = wait_final(client, submit(client, config)["id"])  # no data under the root
    assert failed["status"] == "failed"

    with TestClient(create_app(embedded_settings(db_url, max_run_memory_mb=64))) as strict:
        response = strict.post(f"/api/runs/{failed['id']}/resume")

    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert (error["loc"], error["type"]) == (["config", "data", "dataset"], "memory_limit")
    assert "(FEDWATCH_MAX_RUN_MEMORY_MB=64)" in error["msg"]
    after = client.get(f"/api/runs/{failed['id']}").json()
    assert (after["status"], after["error"]) == ("failed", failed["error"])


def defaults(**settings: Any) -> Settings:
    """The service's defaults, whatever this environment sets."""
    limits = ("max_run_memory_mb", "max_run_gflop", "flush_rounds")
    return Settings(**{name: Settings.model_fields[name].default for name in limits}, **settings)


# Not an estimate to fix: this needs a server with its memory raised (the refusal says
# so). femnist-markov's memory methods (FedLaAvg, MIFA, FedVARP) hold an update per
# writer, 3 550 × leaf_cnn's 6.6 M floats (87 GiB), and a checkpoint holds that state
# again. (leaf-femnist's c=35 variant, which trained 35 copies of that CNN at once,
# 5.2 GiB, fits since `backend: auto` trains a model that large one client at a time.)
# Strict: the day it fits, this fails until its mark goes.
NEEDS_A_LARGE_SERVER = {("femnist-markov", "")}


def preset_variants() -> list[Any]:
    """Every preset with each of its variants ("" where it has none)."""
    cases = [(n, v) for n, p in sorted(PRESETS.items()) for v in p.variants or [""]]
    large = pytest.mark.xfail(strict=True, reason="needs a server with more memory")
    return [pytest.param(*c, marks=large) if c in NEEDS_A_LARGE_SERVER else c for c in cases]


@pytest.mark.parametrize(("name", "variant"), preset_variants())
def test_every_preset_fits_the_default_limits(name: str, variant: str, tmp_path: Path) -> None:
    tiny_femnist(tmp_path)  # LEAF's splits present: their layout is checked at submission
    tiny_shakespeare(tmp_path)
    preset = PRESETS[name]
    sets = preset.variants[variant] if variant else []
    for method in preset.compare:
        config = preset.run_config([*sets, *method.as_overrides()])

        found = refusals([config], defaults(data_root=str(tmp_path)))
        assert found == [[]], (name, sets, method.name)
