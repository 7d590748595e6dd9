"""An SDK-logged run in Chromium: its page's accuracy curve and availability raster, and
its comparison with a simulated run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from fedwatch.client import FedWatch
from tests.api.helpers import example1, wait_final
from tests.client.rounds import Logged
from tests.frontend.conftest import screenshot
from tests.frontend.test_pages import POINTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RASTER = "() => document.querySelector('[data-plot=availability]')?.data?.[0]?.z"


def test_an_sdk_run_shows_its_curve_and_availability(
    page: Any, server: str, tmp_path: Path
) -> None:
    logged = Logged.random(60, n_clients=8, seed=4)
    fw = FedWatch(server, spool_dir=tmp_path, flush_s=0.05)
    with fw.start_run("from-my-own-loop", {"lr": 0.05}, n_clients=8) as run:
        logged.log(run, range(60))
    assert run.finished

    page.goto(f"{server}/#/runs/{run.id}")
    page.wait_for_selector(".run-head .badge[data-status=succeeded]")
    page.wait_for_function(f"() => ({POINTS})(['curve-accuracy', 'test_acc']) === 60")
    page.wait_for_function(f"() => ({RASTER})()?.length === 8")
    raster = page.evaluate(RASTER)
    assert raster == logged.availability()  # 8 clients × 60 rounds, each round its cell
    assert "from-my-own-loop" in page.inner_text(".run-head")
    screenshot(page, "run-external")


def test_comparing_an_sdk_run_with_a_simulated_one_collapses_their_own_fields(
    page: Any, server: str, tmp_path: Path
) -> None:
    fw = FedWatch(server, spool_dir=tmp_path, flush_s=0.05)
    with fw.start_run("sdk", {"lr": 0.05, "optimizer": "sgd"}, n_clients=4) as run:
        run.log_round(0, {"test_acc": 0.5})
    simulated = httpx.post(f"{server}/api/runs", json={"config": example1(5)}).json()["id"]
    with httpx.Client(base_url=server, timeout=30) as client:
        wait_final(client, simulated)

    page.goto(f"{server}/#/compare?runs={simulated},{run.id}&group_by=none")
    page.wait_for_selector(".summary-table td[data-key=config] details")

    # The groups in the order of their runs (the SDK's came first), whatever the URL's.
    lines = page.locator(".summary-table td[data-key=config] summary").all_inner_texts()
    assert lines[0] == "external config (2 fields)"
    assert re.fullmatch(r"simulated config \(\d+ fields\)", lines[1])
    assert int(lines[1].split("(")[1].split()[0]) > 50
    height = page.evaluate("() => document.documentElement.scrollHeight")
    assert height < 2000, height  # 90 fields a side, one line each, made the page 3684 px
    page.click(".summary-table tr:nth-child(1) td[data-key=config] summary")
    assert page.locator(".summary-table tr:nth-child(1) details[open] div").all_inner_texts() == [
        "lr = 0.05",
        "optimizer = sgd",
    ]
