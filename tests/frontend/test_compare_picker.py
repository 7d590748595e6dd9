"""The compare page's run picker gives each run's status as it is now: a run listed
while it was queued or running reads "succeeded" once it ends, with the page open."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.helpers import example1
from tests.frontend.test_pages import wait_status

pytestmark = pytest.mark.browser

OPTION = '() => document.querySelector(\'select[aria-label="add run"] option[value="{id}"]\')'


def test_the_run_picker_follows_a_run_to_its_end(page: Any, server: str) -> None:
    run_id = httpx.post(f"{server}/api/runs", json={"config": example1(4000)}).json()["id"]
    option = OPTION.format(id=run_id)
    page.goto(f"{server}/#/compare?runs={run_id}")
    page.wait_for_function(f"() => /\\((queued|running)\\)$/.test(({option})()?.textContent)")

    wait_status(server, run_id, {"succeeded"})

    page.wait_for_function(f"() => ({option})()?.textContent.endsWith('(fedlaavg, succeeded)')")
    assert page.locator("select[aria-label='add run'] option").first.inner_text() == "+ add run…"
