"""`GET /api/runs/{id}/privacy/clients`: the histogram of per-client ε after the latest
round, whose worst and median clients are the accountant's recorded figures, for the
preset dp-availability shrunk (amplified under Bernoulli, composed under diurnal and
Markov availability); a 404 for a run without privacy; an external run's own figures
with no histogram."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from db.models import RoundClients
from db.packing import pack_facts
from db.runs import new_run
from db.session import make_engine, make_sessionmaker
from tests.api.helpers import submit, wait_final
from tests.api.test_ingest import external, post
from worker.presets import get_preset

PRESET = get_preset("dp-availability")
SHRUNK = ["rounds=6", "device=cpu", "data.n_clients=10", "algorithm.participation=5"]
FIGURES = ("epsilon_assumed", "epsilon_client_max", "epsilon_client_median")


def method(label: str, *extra: str) -> dict[str, object]:
    [chosen] = [m for m in PRESET.compare if m.name == label]
    config = PRESET.run_config([*SHRUNK, *chosen.as_overrides(), *extra])
    return config.model_dump(mode="json")


def finished(client: TestClient, config: dict[str, object]) -> int:
    run = submit(client, config)
    assert wait_final(client, run["id"])["status"] == "succeeded"
    return int(run["id"])


@pytest.mark.parametrize(
    ("label", "extra", "amplified"),
    [
        ("bernoulli", (), True),
        ("bernoulli", ("availability.bernoulli.profile=uniform",), True),
        ("diurnal", (), False),
        ("markov", (), False),
    ],
)
def test_the_histogram_agrees_with_the_recorded_figures(
    client: TestClient, label: str, extra: tuple[str, ...], amplified: bool
) -> None:
    run_id = finished(client, method(label, *extra))

    got = client.get(f"/api/runs/{run_id}/privacy/clients").json()

    series = client.get(f"/api/runs/{run_id}/metrics").json()["series"]
    for name in FIGURES:
        assert series[name]["round"][-1] == 5
        assert got[name] == pytest.approx(series[name]["last"][-1], rel=1e-12)
    assert (got["round"], got["rounds"], got["n_clients"]) == (5, 6, 10)
    assert (got["mechanism"], got["delta"], got["noise_multiplier"]) == ("central", 1e-5, 1.0)
    assert got["amplified"] is amplified
    histogram = got["histogram"]
    assert sum(histogram["counts"]) == 10 and histogram["exact"]
    assert len(histogram["edges"]) == len(histogram["counts"]) + 1
    assert histogram["edges"][-1] == pytest.approx(got["epsilon_client_max"], rel=1e-12)
    assert got["no_histogram"] is None


def test_equal_rates_make_one_bin_and_the_reason_is_given(client: TestClient) -> None:
    run_id = finished(client, method("bernoulli"))

    got = client.get(f"/api/runs/{run_id}/privacy/clients").json()

    eps = got["epsilon_client_max"]
    assert got["histogram"] == {"edges": [eps, eps], "counts": [10], "exact": True}
    assert got["epsilon_client_median"] == eps
    assert "Poisson sample at its own rate" in got["amplification"]


def test_an_amplified_run_recorded_before_rates_were_kept_has_no_histogram(
    client: TestClient, db_url: str
) -> None:
    run_id = finished(client, method("bernoulli"))
    engine = make_engine(db_url)
    old_facts = pack_facts(np.full(10, 0.1), None)  # round 0's facts as stored before
    with make_sessionmaker(engine)() as session:
        row = RoundClients.run_id == run_id, RoundClients.round == 0
        session.execute(update(RoundClients).where(*row).values(clients=old_facts))
        session.commit()
    engine.dispose()

    got = client.get(f"/api/runs/{run_id}/privacy/clients").json()

    assert (got["histogram"], got["amplified"]) == (None, True)
    assert "before the clients' rates were kept" in got["no_histogram"]
    series = client.get(f"/api/runs/{run_id}/metrics").json()["series"]
    assert got["epsilon_client_max"] == series["epsilon_client_max"]["last"][-1]


def test_a_run_without_privacy_is_a_404(client: TestClient) -> None:
    run_id = finished(client, method("markov", "privacy.kind=none"))

    response = client.get(f"/api/runs/{run_id}/privacy/clients")

    assert response.status_code == 404
    assert response.json() == {"detail": f"run {run_id} has no privacy: privacy.kind is none"}


def test_a_run_before_its_first_round_is_a_409(client: TestClient, db_url: str) -> None:
    # a queued run no worker was handed: it stays queued
    engine = make_engine(db_url)
    with make_sessionmaker(engine)() as session:
        run = new_run(method("markov"), queue="cpu")
        session.add(run)
        session.commit()
        run_id = run.id
    engine.dispose()

    response = client.get(f"/api/runs/{run_id}/privacy/clients")

    assert response.status_code == 409
    assert response.json() == {"detail": f"run {run_id} has recorded no round yet"}


def test_an_external_run_shows_its_own_figures_and_no_histogram(client: TestClient) -> None:
    run = external(client)
    rounds = [
        {"round": 0, "metrics": {"epsilon_assumed": 1.5, "epsilon_client_max": 2.5}},
        {"round": 1, "metrics": {"epsilon_assumed": 2.0, "epsilon_client_max": 3.0}},
    ]
    assert post(client, run["id"], rounds).status_code == 200

    got = client.get(f"/api/runs/{run['id']}/privacy/clients").json()

    assert (got["round"], got["histogram"], got["amplified"]) == (1, None, None)
    assert (got["epsilon_assumed"], got["epsilon_client_max"]) == (2.0, 3.0)
    assert got["epsilon_client_median"] is None
    assert "no per-client data" in got["no_histogram"]


def test_an_external_run_that_logged_no_epsilon_is_a_404(client: TestClient) -> None:
    run = external(client)
    assert post(client, run["id"], [{"round": 0, "metrics": {"test_acc": 0.5}}]).status_code == 200

    response = client.get(f"/api/runs/{run['id']}/privacy/clients")

    assert response.status_code == 404
    assert response.json() == {"detail": f"run {run['id']} has no privacy: it logged no ε"}
