"""An asynchronous run's page in Chromium: its two staleness measures in model versions,
client age and update staleness, each named with its definition beside it; each client's
share of the aggregate against its share of the data (the participation view), and the
clients in simulated time (the timeline)."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.api.helpers import submit, wait_final
from tests.frontend.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TITLE = '(plot) => document.querySelector(`[data-plot="${plot}"]`)?.layout?.title?.text ?? ""'
X_TITLE = '(plot) => document.querySelector(`[data-plot="${plot}"]`)?.layout?.xaxis.title.text'


def test_async_run_page_shows_versions_and_participation(page: Any, server: str) -> None:
    config = {
        "name": "fedbuff",
        "rounds": 10,
        "device": "cpu",
        "data": {"n_clients": 12},
        "availability": {"kind": "bernoulli", "bernoulli": {"profile": "uniform", "p_min": 0.1}},
        "algorithm": {"name": "fedbuff", "fedbuff": {"concurrency": 4, "buffer": 2}},
        "system": {"kind": "profiles"},
    }
    with httpx.Client(base_url=server) as api:
        run_id: int = submit(api, config)["id"]
        assert wait_final(api, run_id)["status"] == "succeeded"
        part = api.get(f"/api/runs/{run_id}/participation").json()
        timeline = api.get(f"/api/runs/{run_id}/timeline", params={"max_buckets": 60}).json()
    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_selector(".run-head .badge[data-status=succeeded]")

    page.wait_for_function(f"() => ({TITLE})('staleness').includes('versions since')")
    page.wait_for_function(f"() => ({X_TITLE})('staleness-hist') === 'client age (versions)'")
    assert "server update cells" in page.evaluate(TITLE, "staleness-hist")
    assert page.evaluate(TITLE, "staleness").startswith("Client age heatmap")
    page.wait_for_function("() => document.querySelector('[data-plot=curve-versions]')?.data")
    shown = page.evaluate(
        "() => document.querySelector('[data-plot=curve-versions]').data.map((t) => t.name)"
    )
    assert any("update staleness max" in str(name) for name in shown)
    # the two staleness measures, both in versions: each named, its definition beside it
    panels = {p["name"]: p for p in httpx.get(f"{server}/api/metrics/panels").json()}
    for plot, panel, name in (
        ("curve-staleness", "staleness", "Client age"),
        ("curve-versions", "versions", "Update staleness"),
    ):
        assert page.evaluate(TITLE, plot) == panels[panel]["title"] == name
        beside = page.locator(f'.plot-card:has([data-plot="{plot}"]) .definition')
        assert beside.inner_text() == panels[panel]["description"]
        assert beside.inner_text().startswith(f"{name}: ")
    client_age = page.locator('.plot-card:has([data-plot="staleness"]) .definition')
    assert client_age.inner_text() == panels["staleness"]["description"]
    labels = page.evaluate(
        "() => document.querySelector('[data-plot=curve-staleness]').data.map((t) => t.name)"
    )
    assert any("client age mean" in str(name) for name in labels)

    # the client timeline: each client from the moment it started, on its version
    shown_states = {timeline["labels"][s] for row in timeline["states"] for s in row}
    assert {"training", "kept"} <= shown_states
    page.wait_for_function("() => document.querySelector('[data-plot=timeline]')?.data?.length")
    drawn = page.evaluate("() => document.querySelector('[data-plot=timeline]').data[0].text")
    assert "training" in {cell for row in drawn for cell in row}
    points = "() => document.querySelector('[data-plot=participation]')?.data?.[0]"
    page.wait_for_function(f"() => ({points})()?.x?.length === 12")
    trace = page.evaluate(points)
    assert trace["x"] == pytest.approx(part["data_share"])
    assert trace["y"] == pytest.approx(part["aggregate_share"])
    title = page.evaluate(TITLE, "participation")
    shown_tv = re.search(r"bias TV\(α, p̄\) = ([0-9.e-]+)", title)
    assert shown_tv and float(shown_tv[1]) == pytest.approx(part["participation_tv"], rel=1e-2)
    assert page.evaluate(X_TITLE, "participation-outcomes") == "device time for a round (s)"
    screenshot(page, "async-run")
