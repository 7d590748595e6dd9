"""Edit → Save on a run page keeps the *Model* button: the edit's answer gives the run
with its model's size, as reading it does."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.helpers import example1
from tests.frontend.test_pages import wait_status

pytestmark = pytest.mark.browser

MODEL = ".run-head button[data-format=safetensors]"


def test_the_model_button_stays_after_an_edit(page: Any, server: str) -> None:
    run_id = httpx.post(f"{server}/api/runs", json={"config": example1(5)}).json()["id"]
    assert wait_status(server, run_id, {"succeeded"})["model_bytes"] > 0
    page.goto(f"{server}/#/runs/{run_id}")
    page.locator(MODEL).wait_for(timeout=60_000)

    page.click(".run-head button:has-text('Edit')")
    page.fill("[name=edit-notes]", "kept with its model")
    page.click(".edit-run button:has-text('Save')", timeout=60_000)
    page.locator(".edit-run").wait_for(state="detached", timeout=60_000)

    assert page.inner_text(".run-head .notes") == "kept with its model"
    assert page.locator(MODEL).inner_text() == "Model"
