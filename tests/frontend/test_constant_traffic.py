"""A run whose traffic is the same every round: its "Traffic per round" panel has a y
axis from 0 to twice the value, ticked in legible steps, not Plotly's v ± 1 in steps of
a millionth of v ("9.2400995e+6")."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from fedwatch.client import FedWatch
from tests.frontend.test_pages import POINTS

pytestmark = pytest.mark.browser

BYTES = 9_240_100.0
AXIS = "() => document.querySelector('[data-plot=curve-traffic]')._fullLayout.yaxis"


def test_a_constant_traffic_panel_is_ticked_legibly(page: Any, server: str, tmp_path: Path) -> None:
    fw = FedWatch(server, spool_dir=tmp_path, flush_s=0.05)
    with fw.start_run("constant traffic", {"lr": 0.05}, n_clients=4) as run:
        for r in range(6):
            run.log_round(r, {"test_acc": 0.5, "bytes_down": BYTES, "bytes_up": BYTES})

    page.goto(f"{server}/#/runs/{run.id}")
    page.wait_for_function(
        f"() => ({POINTS})(['curve-traffic', 'bytes_down']) === 6", timeout=60_000
    )
    page.locator("[data-plot=curve-traffic] .ytick text").first.wait_for()

    assert page.evaluate(f"() => ({AXIS})().range") == [0, 2 * BYTES]
    ticks = page.evaluate(f"() => ({AXIS})()._vals.map(v => [v.x, v.text])")
    values = [x for x, _ in ticks]
    steps = {b - a for a, b in itertools.pairwise(values)}
    assert len(values) >= 3 and min(steps) >= BYTES / 10  # no steps of a millionth
    assert all(float(text) == x for x, text in ticks)  # each label the value it marks
    assert len({text for _, text in ticks}) == len(ticks)
