"""The compare page's config-diff column, axis controls kept in the URL, and a sweep's
parallel coordinates, in Chromium against a real `fedwatch serve`."""

from __future__ import annotations

import math
from typing import Any

import httpx
import pytest

from tests.frontend.conftest import screenshot
from tests.frontend.sweeps import LRS, lr_sweep, runs_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CONFIG_CELLS = """() => [...document.querySelectorAll('.summary-table tbody tr')].map((tr) =>
  [tr.dataset.group,
   [...tr.querySelectorAll('td[data-key=config] > div')].map((d) => d.textContent)])"""
YAXIS = "document.querySelector('[data-plot=compare]')?.layout?.yaxis"
PARCOORDS = "document.querySelector('[data-plot=parcoords]')?.data?.[0]"


@pytest.fixture(scope="module")
def sweep(server: str) -> dict[str, Any]:
    return lr_sweep(server)


def by_algorithm(server: str, sweep: dict[str, Any], algorithm: str) -> list[int]:
    runs = runs_of(server, sweep)
    return [r["id"] for r in runs if r["algorithm"] == algorithm]


def range_is(lo: float | None, hi: float | None) -> str:
    """JS condition: the compare plot's y range is [lo, hi] (None: that end autoranged)."""

    def end(i: int, v: float | None) -> str:
        return f"typeof r[{i}] === 'number'" if v is None else f"Math.abs(r[{i}] - {v!r}) < 1e-9"

    ends = f"{end(0, lo)} && {end(1, hi)} && r[0] < r[1]"
    return f"() => {{ const r = {YAXIS}?.range; return !!r && {ends}; }}"


def test_config_diff_column_shows_only_what_differs(page: Any, server: str, sweep: Any) -> None:
    page.goto(f"{server}/#/compare?experiment={sweep['id']}")
    page.wait_for_function(f"() => ({CONFIG_CELLS})().length === 4")
    cells = dict(page.evaluate(CONFIG_CELLS))
    # Per experiment cell, the two swept fields; everything the runs share is left out
    # (their names and seeds too).
    assert sorted(cells.values()) == sorted(
        [f"algorithm.name = {a}", f"client.lr = {lr}"] for a in ("cafed", "fedavg") for lr in LRS
    )
    for group, lines in cells.items():
        assert group == ", ".join(line.replace(" = ", "=") for line in lines)

    # Two runs of one algorithm differ in client.lr alone.
    fedavg = by_algorithm(server, sweep, "fedavg")
    page.goto(f"{server}/#/compare?runs={','.join(map(str, fedavg))}&group_by=none")
    page.wait_for_function(f"() => ({CONFIG_CELLS})().length === 2")
    assert [lines for _, lines in page.evaluate(CONFIG_CELLS)] == [
        ["client.lr = 0.01"],
        ["client.lr = 0.03"],
    ]
    assert page.inner_text(".summary-table th[data-key=config]").lower() == "config diff"
    assert page.locator(".sweep-view").is_hidden()  # runs, no experiment: no sweep view

    # A run alone differs in nothing: no column.
    page.goto(f"{server}/#/compare?runs={fedavg[0]}")
    page.wait_for_selector(".summary-table tbody tr")
    assert page.locator(".summary-table [data-key=config]").count() == 0


def test_log_y_and_y_range_are_kept_in_the_url(page: Any, server: str, sweep: Any) -> None:
    fedavg = by_algorithm(server, sweep, "fedavg")
    page.goto(f"{server}/#/compare?runs={','.join(map(str, fedavg))}&metric=test_acc")
    page.wait_for_function(f"() => {YAXIS}?.type === 'linear'")
    assert not page.is_checked("input[name=logy]")

    page.check("input[name=logy]")
    page.wait_for_function(f"() => {YAXIS}.type === 'log'")
    assert "logy=1" in page.url
    page.fill("input[name=ymin]", "0.5")
    page.fill("input[name=ymax]", "0.8")
    # A log axis's range is in log10 units.
    page.wait_for_function(range_is(math.log10(0.5), math.log10(0.8)))
    assert "ymin=0.5" in page.url and "ymax=0.8" in page.url
    screenshot(page, "compare-axis-controls")

    page.reload()
    page.wait_for_function(f"() => {YAXIS}?.type === 'log'")
    page.wait_for_function(range_is(math.log10(0.5), math.log10(0.8)))
    assert page.is_checked("input[name=logy]")
    assert page.input_value("input[name=ymin]") == "0.5"
    assert page.input_value("input[name=ymax]") == "0.8"

    page.uncheck("input[name=logy]")
    page.wait_for_function(f"() => {YAXIS}.type === 'linear'")
    page.wait_for_function(range_is(0.5, 0.8))
    assert "logy=0" in page.url
    page.fill("input[name=ymax]", "")  # one bound: the other end is Plotly's
    page.wait_for_function(range_is(0.5, None))
    assert "ymax" not in page.url and "ymin=0.5" in page.url
    page.reload()
    page.wait_for_function(range_is(0.5, None))
    assert page.evaluate(f"() => {YAXIS}.type") == "linear"
    assert not page.is_checked("input[name=logy]")


def test_a_sweep_in_parallel_coordinates(page: Any, server: str, sweep: Any) -> None:
    runs = {r["id"]: r for r in runs_of(server, sweep)}
    page.goto(f"{server}/#/compare?experiment={sweep['id']}")
    page.wait_for_function(f"() => {PARCOORDS}?.dimensions?.length === 3")
    trace = page.evaluate(f"() => {PARCOORDS}")
    labels = [d["label"] for d in trace["dimensions"]]
    # One axis per swept field, then the summary value (best accuracy: the first ranked).
    assert labels == [*sweep["grid"], "best accuracy"]
    assert sorted(trace["meta"]["runs"]) == sorted(runs)  # a line per run
    assert all(len(d["values"]) == len(runs) for d in trace["dimensions"])
    algorithm, lr, value = trace["dimensions"]
    assert algorithm["ticktext"] == ["cafed", "fedavg"]  # categorical: labelled ticks
    order = trace["meta"]["runs"]
    assert [algorithm["ticktext"][v] for v in algorithm["values"]] == [
        runs[i]["algorithm"] for i in order
    ]
    assert lr["values"] == [runs[i]["config"]["client"]["lr"] for i in order]
    assert value["values"] == pytest.approx([runs[i]["summary"]["best_test_acc"] for i in order])
    page.wait_for_selector("[data-plot=parcoords] .main-svg")
    screenshot(page, "compare-parcoords")

    page.select_option("select[name=pc]", "time_avg_test_acc")
    last = f"() => {PARCOORDS}.dimensions.at(-1).label"
    page.wait_for_function(f"() => ({last})() === 'time-average accuracy'")
    assert "pc=time_avg_test_acc" in page.url
    shown = page.evaluate(f"() => {PARCOORDS}.dimensions.at(-1).values")
    assert shown == pytest.approx([runs[i]["summary"]["time_avg_test_acc"] for i in order])
    page.reload()
    page.wait_for_function(f"() => ({last})() === 'time-average accuracy'")
    assert page.input_value("select[name=pc]") == "time_avg_test_acc"


def test_choices_and_files_are_the_servers(page: Any, server: str, sweep: Any) -> None:
    meta = httpx.get(f"{server}/api/meta", timeout=30).json()
    page.goto(f"{server}/#/compare?experiment={sweep['id']}&x=wall")
    page.wait_for_function(f"() => ({CONFIG_CELLS})().length === 4")

    def options(name: str) -> list[list[str]]:
        return page.eval_on_selector_all(
            f"select[name={name}] option", "os => os.map((o) => [o.value, o.textContent])"
        )

    # Each chooser offers what GET /api/meta serves, in its order and words.
    assert options("x") == [[a["key"], a["option"]] for a in meta["x_axes"]]
    assert options("group_by") == [[c["name"], c["label"]] for c in meta["group_by"]]
    assert options("band") == [[c["name"], c["label"]] for c in meta["bands"]]
    assert page.input_value("select[name=x]") == "wall_s"  # the address's word, read
    assert page.input_value("input[name=alpha]") == str(meta["alpha"])

    def files(kind: str) -> list[list[str]]:
        return page.eval_on_selector_all(
            f"[data-files={kind}] button", "bs => bs.map((b) => [b.dataset.format, b.textContent])"
        )

    assert files("table") == [[c["name"], c["label"]] for c in meta["table_formats"]]
    assert files("figure") == [[c["name"], c["label"]] for c in meta["figure_formats"]]

    # No band: the groups' means alone.
    page.select_option("select[name=band]", "none")
    title = "document.querySelector('[data-plot=compare]')?.layout?.title?.text"
    page.wait_for_function(f"() => {title}?.includes('mean per group')")
    assert "band=none" in page.url
