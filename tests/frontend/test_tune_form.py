"""The new-run page's tune mode in Chromium: a preset's methods tuned from the form (its
settings shrunk in the form, the search space in the sweep editor's rows, the budget),
kept in the address over a reload, posted, and the tune's page shown; a refused tune (an
inverted range) says why at the searched key's row, with nothing created."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest

from tests.frontend.conftest import screenshot
from tests.frontend.test_pages import open_preset

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TIMEOUT = httpx.Timeout(120)  # the server runs one round of each method to check a tune
RANGE = '[aria-label="range of client.lr"]'


def fill_tune(page: Any, server: str) -> None:
    """cafed-synthetic in tune mode, shrunk: 3 rounds, two methods, 2 trials, 1 seed."""
    open_preset(page, server, "cafed-synthetic")
    page.click("button.tab:has-text('Tune')")
    page.fill('[name="rounds"]', "3")
    for method in ("adafed", "f3ast"):
        page.uncheck(f'[name="tune-method"][value="{method}"]')
    page.fill('[name="tune-trials"]', "2")
    page.fill('[name="tune-seeds"]', "1")
    page.select_option('[name="tune-sampler"]', "random")
    page.select_option('[name="tune-pruner"]', "none")


def count(server: str, what: str) -> int:
    found: int = httpx.get(f"{server}/api/{what}", timeout=TIMEOUT).json()["count"]
    return found


def test_a_tune_from_the_form(page: Any, server: str) -> None:
    fill_tune(page, server)
    assert page.input_value(RANGE) == "log:1e-3:1"  # the form's default search space
    # the address keeps the mode and every field of the tune
    page.reload()
    page.wait_for_selector(".preset-info p")
    page.wait_for_function("() => document.querySelector('[name=\"tune-trials\"]').value === '2'")
    assert page.get_attribute("button.tab:has-text('Tune')", "aria-selected") == "true"
    ticked = page.eval_on_selector_all(
        '[name="tune-method"]', "bs => bs.map(b => [b.value, b.checked])"
    )
    assert ticked == [["cafed", True], ["unbiased", True], ["adafed", False], ["f3ast", False]]
    assert page.input_value('[name="rounds"]') == "3"
    assert page.input_value('[name="tune-pruner"]') == "none"
    submit = page.locator("button[type=submit]")
    assert submit.inner_text() == "Tune 2 methods, 2 trials each"
    screenshot(page, "new-run-tune", full_page=False)

    submit.click()
    page.wait_for_url(re.compile(r"#/tunes/\d+$"), timeout=120_000)
    tune_id = int(page.url.rsplit("/", 1)[1])
    page.wait_for_selector(".tune-protocol")
    spec = httpx.get(f"{server}/api/tunes/{tune_id}", timeout=TIMEOUT).json()["spec"]
    assert spec["preset"] == "cafed-synthetic"
    assert spec["methods"] == ["cafed", "unbiased"]
    assert spec["space"] == ["client.lr=log:1e-3:1"]
    budget = (spec["trials"], spec["seeds"], spec["sampler"], spec["pruner"])
    assert budget == (2, 1, "random", "none")
    assert spec["objective"] == "final_val_acc"
    assert spec["set"] == ["rounds=3"]
    # its runs end before the next test counts runs
    deadline = time.monotonic() + 240
    while httpx.get(f"{server}/api/tunes/{tune_id}", timeout=TIMEOUT).json()["status"] != "done":
        assert time.monotonic() < deadline
        time.sleep(0.3)
    # each of its runs in the runs list links its page
    page.goto(f"{server}/#/runs?tag=tune:{tune_id}")
    page.wait_for_selector("a.tune-link")
    links = page.eval_on_selector_all("a.tune-link", "as => as.map(a => a.getAttribute('href'))")
    tagged = count(server, f"runs?tag=tune:{tune_id}")
    assert tagged >= 6  # 2 methods × (2 trials + 1 final run)
    assert links == [f"#/tunes/{tune_id}"] * tagged


def test_a_refused_tune_at_its_field(page: Any, server: str) -> None:
    tunes, runs = count(server, "tunes"), count(server, "runs")
    fill_tune(page, server)
    page.fill(RANGE, "log:1:0.001")
    page.click("button[type=submit]")
    error = page.locator('.tune-space [data-path="client.lr"] > .field-error')
    error.wait_for(timeout=120_000)
    assert error.inner_text() == "empty or inverted range [1, 0.001]"
    assert page.locator(".form-errors li").all_inner_texts() == [
        "client.lr: empty or inverted range [1, 0.001]"
    ]
    # nothing lost, nothing created
    assert page.input_value(RANGE) == "log:1:0.001"
    assert page.input_value('[name="tune-trials"]') == "2"
    assert "log%3A1%3A0.001" in page.url  # the address keeps what was typed
    assert (count(server, "tunes"), count(server, "runs")) == (tunes, runs)
    screenshot(page, "new-run-tune-refused", full_page=False)
