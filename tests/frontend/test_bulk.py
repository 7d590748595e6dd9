"""Bulk actions in the runs table (tag, archive, delete selected: one confirmation, one
request) and an experiment deleted with its runs from its page."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.helpers import example1
from tests.frontend.test_pages import wait_status

pytestmark = pytest.mark.browser

ROWS = "() => [...document.querySelectorAll('tr[data-run-id]')].map((r) => +r.dataset.runId)"


def make_runs(server: str, notes: str, n: int) -> list[int]:
    ids = []
    for _ in range(n):
        body = {"config": example1(3), "notes": notes}
        ids.append(httpx.post(f"{server}/api/runs", json=body).json()["id"])
    for run_id in ids:
        wait_status(server, run_id, {"succeeded"})
    return ids


def shows(page: Any, ids: list[int]) -> None:
    page.wait_for_function(f"() => ({ROWS})().join() === '{','.join(map(str, ids))}'")


def test_tag_archive_and_delete_the_selected_runs(page: Any, server: str) -> None:
    a, b, c = make_runs(server, "bulk-ui", 3)
    page.goto(f"{server}/#/runs?q=bulk-ui")
    shows(page, [c, b, a])

    for run_id in (a, b):
        page.check(f"tr[data-run-id='{run_id}'] input[type=checkbox]")
    assert page.inner_text(".selection-bar .selected-count") == "2 selected:"
    page.fill("input[name=bulk-tag]", "keep")
    page.click(".selection-bar [data-bulk=tag]")
    page.locator(f"tr[data-run-id='{a}'] .tags", has_text="keep").wait_for()
    assert page.locator(f"tr[data-run-id='{c}'] .tags").count() == 0

    page.click(".selection-bar [data-bulk=archive]")
    shows(page, [c])  # archived: left out of the list
    page.select_option("select[name=archived]", "yes")
    shows(page, [b, a])
    assert "archived=yes" in page.url

    page.check("input[name=pick-all]")
    page.click(".selection-bar [data-bulk=delete]")
    page.click(".confirm-slot button:has-text('Delete 2 runs')")  # one confirmation
    page.locator("main", has_text="No run matches these filters.").wait_for()
    for run_id, expected in ((a, 404), (b, 404), (c, 200)):
        assert httpx.get(f"{server}/api/runs/{run_id}").status_code == expected


def test_an_experiment_is_deleted_with_its_runs_from_its_page(page: Any, server: str) -> None:
    body = {"name": "to go", "base": example1(3), "grid": {"client.lr": [0.01, 0.02]},
            "seeds": [0]}  # fmt: skip
    experiment = httpx.post(f"{server}/api/experiments", json=body).json()
    for run_id in experiment["run_ids"]:
        wait_status(server, run_id, {"succeeded"})

    page.goto(f"{server}/#/experiments/{experiment['id']}")
    page.click("button:has-text('Delete experiment')")
    question = page.inner_text(".confirm-slot p")
    assert f'Delete experiment #{experiment["id"]} "to go" and its 2 runs' in question
    page.click(".confirm-slot button:has-text('Delete experiment')")
    page.wait_for_url("**/#/runs")

    assert httpx.get(f"{server}/api/experiments/{experiment['id']}").status_code == 404
    assert all(httpx.get(f"{server}/api/runs/{i}").status_code == 404
               for i in experiment["run_ids"])  # fmt: skip
