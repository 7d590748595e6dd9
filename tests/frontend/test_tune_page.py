"""A tune's page in Chromium: the protocol, each method's progress against its budget,
the optimisation history, importances and parallel coordinates drawn by Plotly, every
trial linked to its run, and the final comparison's experiment."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.frontend.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TIMEOUT = httpx.Timeout(120)  # the server runs one round of each method to check a tune
BODY = {
    "preset": "cafed-synthetic",
    "methods": ["cafed", "unbiased"],
    "space": ["client.lr=log:1e-3:1"],
    "trials": 2,
    "seeds": 1,
    "sampler": "random",
    "pruner": "none",
    "set": ["rounds=3", "device=cpu"],
}


def test_the_tune_page(page: Any, server: str) -> None:
    tune = httpx.post(f"{server}/api/tunes", json=BODY, timeout=TIMEOUT).json()
    deadline = time.monotonic() + 240
    while (read := httpx.get(f"{server}/api/tunes/{tune['id']}", timeout=TIMEOUT).json())[
        "status"
    ] != "done":
        assert time.monotonic() < deadline, read["progress"]
        time.sleep(0.3)

    page.goto(f"{server}/#/tunes/{tune['id']}")

    page.wait_for_selector(".tune-parallel .main-svg")
    assert page.inner_text(".tune-protocol").startswith("Each method tuned over 2 trials")
    rows = page.eval_on_selector_all(
        "table.tune-progress tbody tr",
        "rs => rs.map(r => [r.dataset.method, r.cells[2].innerText, r.cells[3].innerText])",
    )
    assert rows == [["cafed", "2", "0"], ["unbiased", "2", "0"]]
    page.wait_for_function(
        "() => document.querySelectorAll('.tune-history .main-svg').length >= 2"
        " && document.querySelector('.tune-importances .main-svg')"
    )
    # two completed markers and the best-so-far line in each history
    points = page.eval_on_selector_all(
        ".tune-history", "ds => ds.map(d => d.querySelectorAll('.scatterlayer .point').length)"
    )
    assert points == [2, 2]
    links = page.eval_on_selector_all(
        "table.tune-trials a", "as => as.map(a => a.getAttribute('href'))"
    )
    assert sorted(links) == sorted(f"#/runs/{t['run_id']}" for t in read["trials"])
    assert page.get_attribute("a.tune-final", "href") == f"#/experiments/{read['experiment_id']}"
    screenshot(page, "tune")
    page.click("table.tune-trials a >> nth=0")
    page.wait_for_url(f"**/#/runs/{read['trials'][0]['run_id']}")
