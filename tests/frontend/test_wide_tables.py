"""The wide tables (compare summary, runs) fit a 1440×900 window without scrolling sideways;
a column chooser shows the columns hidden by default, and remembers the choice."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.helpers import example1
from tests.frontend.conftest import screenshot
from tests.frontend.sweeps import lr_sweep

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WIDTH = 1440
FITS = """(table) => {
  const t = document.querySelector(table), wrap = t.closest('.table-wrap');
  return {page: document.documentElement.scrollWidth, table: t.offsetWidth,
    wrap: wrap.clientWidth, hidden: wrap.scrollWidth - wrap.clientWidth};
}"""


@pytest.fixture(scope="module")
def sweep(server: str) -> dict[str, Any]:
    return lr_sweep(server, "learning-rate sweep")


def assert_fits(page: Any, table: str) -> None:
    fit = page.evaluate(FITS, table)
    assert fit["page"] <= WIDTH, f"the page scrolls sideways: {fit}"
    assert fit["hidden"] <= 0 and fit["table"] <= fit["wrap"], f"the table overflows: {fit}"


def test_compare_table_fits_and_the_chooser_adds_a_column(
    page: Any, server: str, sweep: Any
) -> None:
    page.set_viewport_size({"width": WIDTH, "height": 900})
    # No grouping: one row a run, each labelled with its long name.
    page.goto(f"{server}/#/compare?experiment={sweep['id']}&group_by=none")
    page.wait_for_function(
        "() => document.querySelectorAll('.summary-table td[data-key=config]').length === 4"
    )
    page.wait_for_selector("[data-plot=compare] .main-svg")
    page.wait_for_selector("[data-plot=parcoords] .main-svg")
    heads = page.eval_on_selector_all(
        ".summary-table thead th", "ths => ths.map((th) => th.dataset.key)"
    )
    # The first five values with data; the other six (client stats, wall time, ...) hidden.
    assert heads == [
        "group",
        "n",
        "ttest",
        "config",
        "best_test_acc",
        "final_test_acc",
        "time_avg_test_acc",
        "std_test_acc_second_half",
        "rounds_to_target",
    ]
    assert_fits(page, ".summary-table")
    screenshot(page, "compare-1440")

    worst = ".summary-table th[data-key=final_client_acc_worst10]"
    assert page.locator(worst).count() == 0
    page.click(".column-chooser summary")
    page.check("input[name=column-final_client_acc_worst10]")
    page.locator(worst).wait_for()
    cells = page.locator(".summary-table td[data-key=final_client_acc_worst10]").all_inner_texts()
    # in percent, as every table writes accuracy (one run a row: 4 significant digits)
    assert len(cells) == 4 and all(1 < float(c) <= 100 for c in cells)
    page.uncheck("input[name=column-config]")
    page.locator(".summary-table th[data-key=config]").wait_for(state="detached")

    page.reload()  # the choice is remembered
    page.locator(worst).wait_for()
    assert page.locator(".summary-table [data-key=config]").count() == 0


def test_runs_table_fits_with_actions_on_screen(page: Any, server: str, sweep: Any) -> None:
    # A running run shows both Cancel and Delete; notes and tags make its name cell taller.
    config = example1(100_000, algorithm__name="fedavg")
    body = {"config": config, "notes": "a long-running baseline kept for the table"}
    running = httpx.post(f"{server}/api/runs", json=body).json()["id"]
    try:
        tags = {"tags": ["baseline", "paper-fig-2", "long"]}
        assert httpx.patch(f"{server}/api/runs/{running}", json=tags).status_code == 200
        page.set_viewport_size({"width": WIDTH, "height": 900})
        page.goto(f"{server}/#/runs")
        row = page.locator(f"tr[data-run-id='{running}']")
        row.locator("button:has-text('Cancel')").wait_for()
        row.locator(".tags .tag:has-text('paper-fig-2')").wait_for()
        for run_id in sweep["run_ids"]:
            page.locator(f"tr[data-run-id='{run_id}']").wait_for()
        assert_fits(page, ".runs-table")
        for name in ("Cancel", "Delete"):
            box = row.locator(f"button:has-text('{name}')").bounding_box()
            assert box["x"] + box["width"] <= WIDTH - 16, f"{name} is off-screen: {box}"
        # A sweep's run name ("learning-rate sweep [algorithm.name=…, client.lr=…] seed=0")
        # takes at most two lines.
        sweep_names = ", ".join(f"tr[data-run-id='{i}'] .run-name" for i in sweep["run_ids"])
        lines = page.eval_on_selector_all(  # the sweep's rows: other tests' runs may be here
            sweep_names,
            "as => as.map((a) => new Set([...a.getClientRects()].map((r) => r.top)).size)",
        )
        screenshot(page, "runs-1440")
        assert lines and max(lines) <= 2, lines

        # Hidden by default: dataset, availability, seed. The chooser shows one.
        keys = "() => [...document.querySelectorAll('.runs-table th')].map((th) => th.dataset.key)"
        assert page.evaluate(keys) == [
            "pick", "id", "name", "status", "progress", "algorithm", "experiment", "result",
            "created", "actions",
        ]  # fmt: skip
        page.click(".column-chooser summary")
        page.check("input[name=column-dataset]")
        page.wait_for_function(f"() => ({keys})().includes('dataset')")
        dataset = page.locator(f"tr[data-run-id='{sweep['run_ids'][0]}'] td").nth(
            page.evaluate(keys).index("dataset")
        )
        assert dataset.inner_text() == "synthetic_clustered"
        page.uncheck("input[name=column-progress]")
        page.wait_for_function(f"() => !({keys})().includes('progress')")
        page.reload()  # remembered
        page.wait_for_function(f"() => ({keys})().includes('dataset')")
        assert "progress" not in page.evaluate(keys)
        assert_fits(page, ".runs-table")
    finally:
        httpx.post(f"{server}/api/runs/{running}/cancel")
