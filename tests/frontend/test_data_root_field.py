"""The form's `data.root`: the field says what the server accepts and where its data
root is, offers the folders that hold the dataset, takes an absolute path inside the
data root (stored relative to it) and gives the server's reason for one outside, on the
Start button and when a reproduction is refused."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.engine.test_data import write_tiny_mnist
from tests.frontend.test_pages import open_preset
from worker.data_root import RULE

pytestmark = pytest.mark.browser


def test_the_root_field_guides_to_a_folder_the_server_accepts(page: Any, server: str) -> None:
    base = Path(httpx.get(f"{server}/api/datasets/mnist").json()["data_root"])
    write_tiny_mnist(base / "sets" / "mine", 60, 20)
    open_preset(page, server, "cafed-mnist")
    note = page.locator('[data-path="data.root"] .root-rule')
    field = page.locator('[name="data.root"]')
    submit = page.locator("button[type=submit]")

    note.filter(has_text="Folders holding").wait_for()
    assert note.inner_text() == (
        f"This server's data root is {base}; data.root is {RULE}. Folders holding mnist: sets/mine."
    )
    options = page.locator("#data-root-folders option")
    assert options.evaluate_all("os => os.map(o => o.value)") == ["sets/mine"]
    assert field.get_attribute("list") == "data-root-folders"

    field.fill("/etc")
    field.dispatch_event("change")
    refused = f"'/etc' is not inside the data root {base}: {RULE}"
    page.locator(".data-status", has_text=refused).wait_for()
    assert submit.is_disabled() and submit.inner_text() == f"data.root: {refused}"
    assert page.inner_text('[data-path="data.root"] .field-error') == refused

    page.click("button:has-text('Reproduce')")
    page.click("button:has-text('Launch')")
    box = page.locator("[aria-label=reproduce] .state-error")
    box.wait_for()
    assert box.inner_text() == f"data.root: {refused}"
    assert "Something went wrong" not in page.inner_text("[aria-label=reproduce]")

    field.fill(f"{base}/sets/mine")
    field.dispatch_event("change")
    page.locator(".data-status").wait_for(state="hidden")
    assert submit.is_enabled() and submit.inner_text() == "Start run"
    page.fill('[name="rounds"]', "1")
    submit.click()
    page.wait_for_url(re.compile(r"#/runs/\d+$"))
    run = httpx.get(f"{server}/api/runs/{page.url.rsplit('/', 1)[1]}").json()
    assert run["config"]["data"]["root"] == "sets/mine"
