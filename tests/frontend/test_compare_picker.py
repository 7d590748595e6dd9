"""The compare page's run picker gives each run's status as it is now: a run listed
while it was running reads "succeeded" once it ends, with the page open."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.browser

OPTION = '() => document.querySelector(\'select[aria-label="add run"] option[value="{id}"]\')'


def test_the_run_picker_follows_a_run_to_its_end(page: Any, server: str) -> None:
    body = {"source": "external", "name": "picked", "config": {}, "n_clients": 1}
    run_id = httpx.post(f"{server}/api/runs", json=body).json()["id"]  # open until finished
    option = OPTION.format(id=run_id)
    page.goto(f"{server}/#/compare?runs={run_id}")
    page.wait_for_function(
        f"() => /, (queued|running)\\)$/.test(({option})()?.textContent)", timeout=60_000
    )

    finished = httpx.post(f"{server}/api/runs/{run_id}/finish", json={"status": "succeeded"})
    assert finished.status_code == 200, finished.text

    page.wait_for_function(f"() => ({option})()?.textContent.endsWith(', succeeded)')")
    assert page.locator("select[aria-label='add run'] option").first.inner_text() == "+ add run…"
