"""A run with a system model in Chromium: its client timeline, and its curves and a
comparison against simulated time."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.api.helpers import submit, wait_final
from tests.frontend.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LAST_X = """(plot) => document.querySelector(`[data-plot="${plot}"]`).data
    .find((t) => t.meta && t.meta.field === 'last').x"""
X_TITLE = '(plot) => document.querySelector(`[data-plot="${plot}"]`)?.layout?.xaxis.title.text'


def timed_run(server: str, algorithm: str = "fedavg", seed: int = 0) -> int:
    config = {
        "name": f"timed {algorithm}",
        "rounds": 12,
        "seed": seed,
        "device": "cpu",
        "data": {"n_clients": 12},
        "algorithm": {"name": algorithm, "participation": 6},
        "system": {"kind": "profiles"},
        "round": {"deadline_s": 0.6},
        "client": {"partial_work": "keep"},
    }
    with httpx.Client(base_url=server) as api:
        run_id: int = submit(api, config)["id"]
        assert wait_final(api, run_id)["status"] == "succeeded"
    return run_id


def sim_times(server: str, run_id: int) -> list[float]:
    rounds = httpx.get(f"{server}/api/runs/{run_id}/rounds", params={"limit": 100}).json()
    return [r["sim_time_s"] for r in rounds["data"]]


def test_client_timeline_and_simulated_time_axis(page: Any, server: str) -> None:
    run_id = timed_run(server)
    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_selector(".run-head .badge[data-status=succeeded]")

    heat = "() => document.querySelector('[data-plot=timeline]')?.data?.[0]"
    page.wait_for_function(f"() => ({heat})()?.z?.length === 12")
    trace = page.evaluate(heat)
    labels = trace["colorbar"]["ticktext"]
    assert labels == ["offline", "online", "training", "uploading", "kept", "partial", "dropped"]
    # each state in the colour the server gives its name
    served = httpx.get(f"{server}/api/meta").json()["timeline_states"]
    colours = {state["name"]: state["colour"] for state in served}
    painted = [trace["colorscale"][2 * i][1] for i in range(len(labels))]
    assert painted == [colours[name] for name in labels]
    shown = {labels[int(z)] for row in trace["z"] for z in row}
    assert {"online", "training", "kept"} <= shown
    ends = sim_times(server, run_id)
    assert trace["x"][-1] < ends[-1] < trace["x"][-1] * 1.01 + 1e-9  # the last bucket's middle
    screenshot(page, "run-timeline")

    page.select_option("select[name=x]", "sim_time_s")
    page.wait_for_function(f"() => ({X_TITLE})('curve-accuracy') === 'simulated time (s)'")
    assert page.evaluate(LAST_X, "curve-accuracy") == pytest.approx(ends)
    assert "x=sim" in page.url
    page.reload()
    page.wait_for_function(f"() => ({X_TITLE})('curve-accuracy') === 'simulated time (s)'")
    assert page.input_value("select[name=x]") == "sim_time_s"


def test_a_run_without_a_system_model_offers_no_simulated_time(page: Any, server: str) -> None:
    with httpx.Client(base_url=server) as api:
        run_id = submit(api, {"rounds": 2, "device": "cpu"})["id"]
        wait_final(api, run_id)
    page.goto(f"{server}/#/runs/{run_id}?x=sim")
    page.wait_for_function(f"() => ({X_TITLE})('curve-accuracy') === 'round'")

    options = page.eval_on_selector_all("select[name=x] option", "os => os.map((o) => o.value)")
    assert options == ["round", "wall_s"]
    assert page.query_selector("[data-plot=timeline]") is None


def test_compare_against_simulated_time(page: Any, server: str) -> None:
    runs = [timed_run(server, "fedavg", seed) for seed in (1, 2)]
    # An older address spells the axis by its key: read, and written back as its word.
    page.goto(f"{server}/#/compare?runs={runs[0]},{runs[1]}&group_by=none&x=sim_time_s")
    page.wait_for_function(f"() => ({X_TITLE})('compare') === 'simulated time (s)'")
    page.wait_for_url(re.compile(r".*[?&]x=sim(&|$)"))
    page.wait_for_function("() => document.querySelector('[data-plot=compare]').data?.length >= 2")

    # One group per run ("#<id> <name>"), each a line of its run's own points.
    lines = page.evaluate(
        """() => document.querySelector('[data-plot=compare]').data
            .filter((t) => t.meta?.group).map((t) => [t.meta.group, t.x])"""
    )
    assert sorted(int(group.split()[0][1:]) for group, _ in lines) == runs
    for group, xs in lines:
        assert xs == pytest.approx(sim_times(server, int(group.split()[0][1:])))
