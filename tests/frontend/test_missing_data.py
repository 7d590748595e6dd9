"""A preset whose data is not on the server: the form says so before Start, where the
files must go and what works here, and holds Start back; a run that failed before its
first round shows its error, not empty charts."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.frontend.test_pages import open_preset, wait_status
from worker.presets import get_preset

pytestmark = pytest.mark.browser


def test_the_form_says_before_start_that_the_data_is_missing(page: Any, server: str) -> None:
    open_preset(page, server, "mifa-cifar10")
    box = page.locator(".data-status")
    box.wait_for()

    text = box.inner_text()
    assert "cifar10 is not under <data root>" in text
    assert "data.download" not in text  # this server downloads nothing
    assert "data.dataset=digits" in text
    submit = page.locator("button[type=submit]")
    assert submit.is_disabled() and submit.inner_text() == "cifar10 is not on this server"
    assert page.locator(".data-status button:has-text('Download it')").count() == 0

    page.click(".data-status button:has-text('Use digits')")
    box.wait_for(state="hidden")
    assert submit.is_enabled() and submit.inner_text() == "Start run"
    assert page.input_value('[name="data.dataset"]') == "digits"
    page.wait_for_function(
        "() => decodeURIComponent(location.hash).includes('data.dataset=digits')"
    )


def test_a_run_that_failed_before_round_0_shows_its_error(page: Any, server: str) -> None:
    config = get_preset("mifa-cifar10").run_config(["rounds=2"]).model_dump(mode="json")
    run_id = httpx.post(f"{server}/api/runs", json={"config": config}).json()["id"]
    failed = wait_status(server, run_id, {"failed"})
    assert failed["rounds_done"] == 0

    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_selector(".run-head .badge[data-status=failed]")

    error = page.inner_text(".run-error")
    assert "cifar10 not found under <data root>" in error
    assert "data.download" not in error and "data.dataset=digits" in error
    page.locator(".curves", has_text="failed before its first round").wait_for()
    page.locator(".client-views", has_text="failed before its first round").wait_for()
    assert page.locator(".client-views .plot-card").count() == 0
    assert page.locator(".curves .main-svg").count() == 0
