"""The compare page while runs are going: each group's curve covers its runs that have
started and grows as rounds land, a note says how many have not, and the summary shows
the running runs' values so far; with no round anywhere, a waiting state."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.browser

GROUP_POINTS = """() => (document.querySelector('[data-plot=compare]')?.data || [])
    .filter((t) => t.meta && t.meta.group).map((t) => t.x.length)"""


def external(server: str, name: str, seed: int) -> int:
    """An external run of the group "mine"; two of one seed would be one run (the newest)."""
    body = {"source": "external", "name": name, "config": {"algorithm": "mine", "seed": seed},
            "n_clients": 2}  # fmt: skip
    response = httpx.post(f"{server}/api/runs", json=body)
    assert response.status_code == 201, response.text
    run_id: int = response.json()["id"]
    return run_id


def log(server: str, run_id: int, rounds: range) -> None:
    body = {"rounds": [{"round": t, "metrics": {"test_acc": 0.5 + t / 1000}} for t in rounds]}
    assert httpx.post(f"{server}/api/runs/{run_id}/rounds", json=body).status_code == 200


def test_partial_curves_grow_live_with_a_waiting_note(page: Any, server: str) -> None:
    going, queued = external(server, "going", 0), external(server, "not yet", 1)

    page.goto(f"{server}/#/compare?runs={going},{queued}")
    page.locator("main", has_text="Waiting for the first rounds").wait_for()

    log(server, going, range(30))
    page.wait_for_function(f"() => ({GROUP_POINTS})().join() === '30'")
    note = page.inner_text("p.waiting")
    assert note.startswith("1 of 2 runs have not recorded test accuracy yet")
    cell = page.inner_text(".summary-table td[data-key=best_test_acc]")
    assert cell.startswith("52.90")  # the running run's best so far: 0.529, in percent

    log(server, going, range(30, 60))
    page.wait_for_function(f"() => ({GROUP_POINTS})().join() === '60'")
    log(server, queued, range(10))  # the other run starts: the group covers both
    page.wait_for_function(f"() => ({GROUP_POINTS})().join() === '10'")
    page.wait_for_function("() => document.querySelector('p.waiting').textContent === ''")
    for run_id in (going, queued):
        httpx.post(f"{server}/api/runs/{run_id}/finish", json={"status": "succeeded"})
