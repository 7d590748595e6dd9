"""A finished run's page shows its lines. Example 1 followed live to its end: on the final
redraw the page reads the stored series downsampled (two rounds a bucket), FedAvg's x
swings within its buckets and gets a min–max band; the band decorates the line, it does
not replace it (before: every swinging panel's line was left in the legend only, greyed,
and the faint band alone was drawn)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.helpers import example1
from tests.frontend.test_pages import POINTS, STATUS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROUNDS = 2000  # past the page's 1000 points: buckets of 2 rounds, 50 swings of x

LINES = """() => [...document.querySelectorAll('[data-plot^="curve-"]')].map((gd) => {
  const shown = (i) => (gd._fullData || [])[i]?.visible;
  return [gd.dataset.plot, (gd.data || []).flatMap((t, i) => t.meta.field === 'last'
    ? [[t.meta.metric, t.visible ?? true, shown(i), t.mode, t.line.width > 0, t.y.length > 0]]
    : [])];
})"""
DRAWN = """() => [...document.querySelectorAll('[data-plot^="curve-"]')]
  .every((gd) => gd.data?.length > 0)"""
BANDED = """() => (document.querySelector('[data-plot="curve-param"]')?.data || [])
  .filter((t) => t.meta.field === 'min' && t.fill === 'tonexty').length"""


def assert_every_line_drawn(page: Any) -> None:
    page.wait_for_function(DRAWN)  # Plotly draws the panels a frame apart
    panels = page.evaluate(LINES)
    assert {name for name, _ in panels} >= {"curve-param", "curve-gap"}
    for name, lines in panels:
        assert lines, name
        for metric, visible, shown, mode, wide, points in lines:
            assert (visible, shown, mode, wide, points) == (True, True, "lines", True, True), (
                name,
                metric,
            )


def test_a_finished_run_shows_each_panel_s_line_over_its_band(page: Any, server: str) -> None:
    body = {"config": example1(ROUNDS, algorithm__name="fedavg")}
    run_id = httpx.post(f"{server}/api/runs", json=body).json()["id"]
    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) > 0", timeout=60_000)
    assert page.evaluate(f"() => {STATUS}") == "running"  # the page follows it live
    assert_every_line_drawn(page)

    page.wait_for_selector(".run-head .badge[data-status=succeeded]", timeout=180_000)
    # The final redraw: the stored series, downsampled, with x's min–max band
    page.wait_for_function(f"() => ({BANDED})() === 1", timeout=30_000)
    assert page.evaluate(f"() => ({POINTS})(['curve-param', 'param'])") == ROUNDS // 2
    assert_every_line_drawn(page)

    page.reload()  # the finished run's page opened afresh draws the same
    page.wait_for_function(f"() => ({BANDED})() === 1", timeout=30_000)
    assert_every_line_drawn(page)
