"""The runs table's filter, ranking, search and page live in the address: a reload shows
the same list; the search finds runs by their tags."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.browser

TAG = "reload-kept"
PAGE_SIZE = 50  # frontend/js/pages/runs/state.js


def tagged_runs(server: str, finished: int) -> list[int]:
    """`finished` succeeded external runs and one still running, all tagged TAG; neither
    their names nor their notes hold it."""
    with httpx.Client(base_url=server, timeout=60) as client:
        ids = []
        for i in range(finished + 1):
            body = {"source": "external", "name": f"r{i}", "n_clients": 1}
            ids.append(client.post("/api/runs", json=body).json()["id"])
        for run_id in ids[:finished]:
            client.post(f"/api/runs/{run_id}/finish", json={}).raise_for_status()
        body = {"action": "tag", "ids": ids, "tag": TAG}
        client.post("/api/runs/bulk", json=body).raise_for_status()
    return ids


def test_filter_ranking_search_and_page_survive_a_reload(page: Any, server: str) -> None:
    ids = tagged_runs(server, PAGE_SIZE + 2)
    page.goto(f"{server}/#/runs")
    page.locator("select[name=status] option[value=succeeded]").wait_for(state="attached")
    page.select_option("select[name=status]", "succeeded")
    page.locator("select[name=rank] option[value=final_test_loss]").wait_for(state="attached")
    page.select_option("select[name=rank]", "final_test_loss")
    page.fill("input[name=q]", TAG)  # a tag: no name or notes hold it
    page.wait_for_url(re.compile(f"q={TAG}"))  # applied (after its debounce) before paging
    pager = page.locator(".pager")
    pager.filter(has_text=f"{PAGE_SIZE + 2} runs").wait_for()  # the running one left out
    pager.locator("button", has_text="Next").click()
    pager.filter(has_text="page 2 of 2").wait_for()
    page.wait_for_url(re.compile(r"offset=50"))
    for part in ("status=succeeded", "rank=final_test_loss", f"q={TAG}", "offset=50"):
        assert part in page.url

    page.reload()
    pager.filter(has_text="page 2 of 2").wait_for()
    assert page.input_value("select[name=status]") == "succeeded"
    assert page.input_value("select[name=rank]") == "final_test_loss"
    assert page.input_value("input[name=q]") == TAG
    shown = page.eval_on_selector_all("tr[data-run-id]", "rows => rows.map(r => +r.dataset.runId)")
    assert len(shown) == 2 and set(shown) < set(ids[:-1])


def test_the_search_finds_a_run_by_its_tag(page: Any, server: str) -> None:
    with httpx.Client(base_url=server, timeout=60) as client:
        body = {"source": "external", "name": "plain name", "n_clients": 1}
        run_id = client.post("/api/runs", json=body).json()["id"]
        client.patch(f"/api/runs/{run_id}", json={"tags": ["Needle-7"]}).raise_for_status()
    page.goto(f"{server}/#/runs")
    page.fill("input[name=q]", "needle")  # part of the tag, in another case
    page.wait_for_function(
        f"() => [...document.querySelectorAll('tr[data-run-id]')].map(r => r.dataset.runId)"
        f".join() === '{run_id}'"
    )
