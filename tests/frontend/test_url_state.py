"""The view's state in the address: the new-run form's preset, variant, mode and the fields
edited away from the preset (or the defaults, or the run copied), restored by a reload or
a shared link; the run page's x axis."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

from tests.api.helpers import example1
from tests.frontend.test_pages import open_preset

pytestmark = pytest.mark.browser

LR_EDITED = "() => document.querySelector('[name=\"client.lr\"]')?.value === '0.05'"


def query(page: Any) -> dict[str, list[str]]:
    """The query of the address's hash route (read in the page: `page.url` learns of a
    `history.replaceState` a moment later)."""
    fragment: str = page.evaluate("() => location.hash")
    return parse_qs(fragment.partition("?")[2])


def value(page: Any, name: str) -> str:
    result: str = page.input_value(f'[name="{name}"]')
    return result


def test_preset_and_edits_live_in_the_address(page: Any, server: str) -> None:
    open_preset(page, server, "example1")
    assert query(page) == {"preset": ["example1"]}
    page.fill('[name="client.lr"]', "0.05")
    page.select_option('[name="algorithm.name"]', "mifa")
    page.fill('[name="data.mean_estimation.means"]', "2, -2")
    page.fill('[name="name"]', "my run, 5")
    assert query(page) == {
        "preset": ["example1"],
        "set": [
            "name=my run, 5",
            "data.mean_estimation.means=[2,-2]",
            "algorithm.name=mifa",
            "client.lr=0.05",
        ],
    }
    page.click("button.tab:has-text('Sweep')")
    assert query(page)["mode"] == ["sweep"]
    # An edit back to the preset's value leaves the address.
    page.fill('[name="client.lr"]', "0.01")
    assert "client.lr=0.01" not in query(page)["set"]
    page.fill('[name="client.lr"]', "0.05")
    page.wait_for_function("() => decodeURIComponent(location.hash).includes('client.lr=0.05')")

    page.reload()
    page.wait_for_selector(".preset-info p")
    page.wait_for_function(LR_EDITED)
    assert value(page, "algorithm.name") == "mifa"
    assert value(page, "data.mean_estimation.means") == "2, -2"
    assert value(page, "name") == "my run, 5"
    assert value(page, "rounds") == "4000"  # the preset's, untouched
    assert page.locator("button.tab.active").inner_text() == "Sweep (experiment)"
    assert page.locator('[data-path="algorithm.mifa.init"]').is_visible()  # mifa's own params
    assert query(page)["set"] == [
        "name=my run, 5",
        "data.mean_estimation.means=[2,-2]",
        "algorithm.name=mifa",
        "client.lr=0.05",
    ]

    # A shared link opens the same form in another tab; choosing "defaults" clears it.
    other = page.context.new_page()
    other.goto(page.evaluate("() => location.href"))
    other.wait_for_function(LR_EDITED)
    assert other.input_value('[name="algorithm.name"]') == "mifa"
    other.select_option("select[name=preset]", "")
    other.wait_for_function("() => location.hash === '#/new?mode=sweep'")
    other.close()


def test_a_text_that_reads_as_json_stays_text(page: Any, server: str) -> None:
    page.goto(f"{server}/#/new?set=name%3D%225%22&set=rounds%3D7")
    page.wait_for_function("() => document.querySelector('[name=\"rounds\"]')?.value === '7'")
    assert value(page, "name") == "5"
    assert query(page) == {"set": ['name="5"', "rounds=7"]}
    page.fill('[name="name"]', "true")
    assert query(page)["set"][0] == 'name="true"'


def test_edits_of_a_copied_run_are_told_from_its_config(page: Any, server: str) -> None:
    config = example1(30, client__lr=0.2)
    run = httpx.post(f"{server}/api/runs", json={"config": config}, timeout=60).json()
    page.goto(f"{server}/#/new?from={run['id']}&set=rounds%3D12")
    page.wait_for_selector(".preset-info a")
    assert value(page, "rounds") == "12"
    assert value(page, "client.lr") == "0.2"  # the run's, not the default
    assert query(page) == {"from": [str(run["id"])], "set": ["rounds=12"]}


def test_run_page_x_axis_in_the_address(page: Any, server: str) -> None:
    run = httpx.post(f"{server}/api/runs", json={"config": example1(30)}, timeout=60).json()
    page.goto(f"{server}/#/runs/{run['id']}")
    page.wait_for_selector("select[name=x]")
    page.select_option("select[name=x]", "wall_s")
    page.wait_for_url(re.compile(rf"#/runs/{run['id']}\?x=wall$"))
    page.reload()
    page.wait_for_function(
        "() => document.querySelector('[data-plot=curve-param]')?.layout?.xaxis?.title?.text"
        " === 'wall time (s)'",
        timeout=30_000,
    )
    assert page.input_value("select[name=x]") == "wall_s"
    page.select_option("select[name=x]", "round")
    page.wait_for_url(re.compile(rf"#/runs/{run['id']}$"))


def launched(page: Any) -> tuple[str, Any]:
    """The launch button's text and the body it posts (the post is held back with a 409:
    no run is created)."""
    bodies: list[Any] = []

    def hold(route: Any) -> None:
        bodies.append(route.request.post_data_json)
        route.fulfill(status=409, json={"detail": "held back by the test"})

    page.route("**/api/experiments", hold)
    page.route("**/api/runs", hold)
    text = page.inner_text("button[type=submit]")
    page.click("button[type=submit]")
    page.wait_for_selector(".form-errors:not([hidden])")
    page.unroute("**/api/experiments")
    page.unroute("**/api/runs")
    assert len(bodies) == 1
    return text, bodies[0]


@pytest.mark.parametrize("mode", ["comparison", "sweep", "single"])
def test_a_reload_keeps_what_the_form_launches(page: Any, server: str, mode: str) -> None:
    open_preset(page, server, "cafed-synthetic")
    if mode == "comparison":
        page.click("button:has-text('Compare cafed, unbiased, adafed, f3ast')")
    elif mode == "sweep":
        page.click("button.tab:has-text('Sweep')")
        page.click("button.add-row")
        page.select_option(".sweep-row select", "client.lr")
        page.fill(".sweep-row input[type=text]", "0.01, 0.03")
        page.fill("input[name=seeds]", "3, 4, 5")
        page.fill("input[name=experiment-name]", "lr sweep")
    else:
        page.fill('[name="client.lr"]', "0.05")
    page.wait_for_timeout(0)  # the address is written on the same tick; nothing to wait for
    before = launched(page)

    page.reload()
    page.wait_for_selector(".preset-info p")
    if mode != "single":
        page.wait_for_function(f"() => document.querySelector('button[type=submit]')"
                               f".textContent === {before[0]!r}")  # fmt: skip
    after = launched(page)

    assert after == before
    expected = {"comparison": "Launch 12 runs", "sweep": "Launch 6 runs", "single": "Start run"}
    assert before[0] == expected[mode]
    if mode == "comparison":
        assert [c["label"] for c in before[1]["cells"]] == ["cafed", "unbiased", "adafed", "f3ast"]
        assert before[1]["seeds"] == [12, 123, 1234]
    if mode == "sweep":
        assert before[1]["grid"] == {"client.lr": [0.01, 0.03]} and before[1]["seeds"] == [3, 4, 5]
