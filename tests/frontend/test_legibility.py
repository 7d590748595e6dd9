"""What made the dashboard hard to read in the first hour: a periodic run's staleness as
a barcode, the staleness histogram's axis, values without units, component names
without labels, fields that do not apply, no log y on the run page, the runs table's
creation date, and no line saying what FedWatch is."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.helpers import example1
from tests.frontend.conftest import js
from tests.frontend.test_pages import open_preset, wait_status

pytestmark = pytest.mark.browser

STALENESS = """() => document.querySelector('[data-plot=curve-staleness]').data
    .filter((t) => t.meta.metric === 'staleness_max')
    .map((t) => [t.meta.field, t.visible === undefined ? true : t.visible, t.showlegend])"""


def test_swings_tell_a_barcode_from_a_trend(modules_page: Any) -> None:
    out = js(
        modules_page,
        "traces.js",
        """m => [m.swings([0, 1, 2, 3, 4]), m.swings([0, 4, 0, 4, 0]),
                 m.swings(Array.from({length: 400}, (_, i) => i % 4)), m.swings([2, null, 2]),
                 m.SWINGS_BAND]""",
    )
    # a trend crosses its range once (4 / (2·4) = 0.5); 0-4-0-4-0 twice (16 / 8); a
    # sawtooth of period 4 over 400 points 100 times ((100·3 + 99·3) / (2·3) = 99.5)
    assert out == [0.5, 2, 99.5, 0, 25]


def test_a_periodic_run_s_staleness_is_a_band_with_units_and_log_axes(
    page: Any, server: str
) -> None:
    body = {"config": example1(4000, algorithm__name="fedavg")}  # availability period 40
    run_id = httpx.post(f"{server}/api/runs", json=body).json()["id"]
    wait_status(server, run_id, {"succeeded"})
    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_selector("[data-plot=curve-staleness] .main-svg")

    # 4000 rounds in 1000 buckets: the bucket-last line alone would be a barcode; its band
    # shows, in the legend, under the line
    assert page.evaluate(STALENESS) == [["max", True, False], ["min", True, True],
                                        ["last", True, None]]  # fmt: skip
    startup = page.inner_text(".summary tr[data-key=startup_s] td")
    assert startup.endswith(" s") and float(startup.split()[0]) > 0
    page.wait_for_selector("[data-plot=staleness-hist] .main-svg")
    hist = "document.querySelector('[data-plot=staleness-hist]').layout.yaxis"
    assert page.evaluate(f"() => {hist}.tickformat") == "~s"  # 8k, not 0.8e+4
    page.check("input[name=hist-log]")
    page.wait_for_function(f"() => {hist}.type === 'log'")
    page.check("input[name=logy]")
    page.wait_for_function(
        "() => document.querySelector('[data-plot=curve-param]').layout.yaxis.type === 'log'"
    )
    assert "logy=1" in page.url
    page.reload()
    page.wait_for_function(
        "() => document.querySelector('[data-plot=curve-param]')?.layout?.yaxis.type === 'log'"
    )


def test_labels_fields_that_apply_the_runs_table_and_the_tagline(page: Any, server: str) -> None:
    open_preset(page, server, "example1")  # the scalar model
    option = page.locator('[name="algorithm.name"] option[value=fedlaavg]')
    assert option.inner_text() == "FedLaAvg (fedlaavg)"
    assert not page.locator('.field[data-path="model.mlp.hidden"]').is_visible()
    assert page.locator('.field[data-path="model.scalar.init"]').is_visible()
    page.select_option('[name="model.name"]', "mlp")
    assert page.locator('.field[data-path="model.mlp.hidden"]').is_visible()
    assert not page.locator('.field[data-path="model.scalar.init"]').is_visible()

    page.goto(f"{server}/#/runs")
    assert "federated learning when clients come and go" in page.inner_text(".tagline")
    page.wait_for_selector(".runs-table th[data-key=created]")
