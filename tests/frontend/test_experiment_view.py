"""An experiment's runs as they progress, on a server that executes one run at a time:
the runs table filtered by the experiment (running first, then the queued ones with their
places in the queue, ETAs once the speeds are measured), and the experiment's own page
(progress over all its runs, counts by status, overall ETA, its runs, links), reached from
the runs table and the compare page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.api.helpers import example1
from tests.eventually import eventually
from tests.frontend.conftest import js, screenshot, serve, watched_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FINAL = {"succeeded", "failed", "cancelled"}
# The machine may be busy: a slow answer is no failure.
TIMEOUT = httpx.Timeout(60)
ROWS = "() => [...document.querySelectorAll('tr[data-run-id]')].map((r) => +r.dataset.runId)"


def wait_final(server: str, run_id: int) -> None:
    def status() -> str:
        run: dict[str, str] = httpx.get(f"{server}/api/runs/{run_id}", timeout=TIMEOUT).json()
        return run["status"]

    eventually(lambda: status() in FINAL, f"run {run_id} finishing", 90, every=0.2)


@pytest.fixture(scope="module")
def one_at_a_time(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own that executes one run at a time."""
    with serve(tmp_path_factory.mktemp("serial"), FEDWATCH_EMBEDDED_CONCURRENCY="1") as url:
        yield url


@pytest.fixture
def serial_page(browser: Any, one_at_a_time: str, page_errors: list[str]) -> Iterator[Any]:
    with watched_page(browser, one_at_a_time, page_errors) as page:
        page.set_default_timeout(20_000)
        yield page


def test_queue_positions_and_etas_of_an_experiment(serial_page: Any, one_at_a_time: str) -> None:
    page, server = serial_page, one_at_a_time
    rounds = 200_000  # longer than the test: cancelled at its end
    body = {"name": "queued <b>sweep</b>", "base": example1(rounds), "seeds": [0, 1, 2, 3]}
    experiment = httpx.post(f"{server}/api/experiments", json=body, timeout=TIMEOUT).json()
    ids = experiment["run_ids"]
    try:
        page.goto(f"{server}/#/runs?experiment={experiment['id']}")
        # Running first, then the queued ones in the order they start, 1 = next. The first
        # run is claimed once the server has warmed up, which may come after the page.
        page.wait_for_function(f"() => ({ROWS})().join() === '{','.join(map(str, ids))}'")
        first = "document.querySelector('tr[data-run-id] .badge').innerText"
        page.wait_for_function(f"() => {first} === 'running'", timeout=60_000)
        statuses = page.locator("tr[data-run-id] .badge").all_inner_texts()
        assert statuses == ["running", "queued", "queued", "queued"]
        positions = page.locator("tr[data-run-id] .queue-position").all_inner_texts()
        assert positions == ["#1 in queue", "#2 in queue", "#3 in queue"]
        # Every ETA appears once the running run's rounds are timed, later ones later.
        measured = """() => { const e = [...document.querySelectorAll('tr[data-run-id] .eta')];
          return e.length === 4 && e.every((x) => x.dataset.eta !== ''); }"""
        page.wait_for_function(measured, timeout=60_000)
        etas = [
            float(x)
            for x in page.eval_on_selector_all(".eta", "els => els.map((e) => e.dataset.eta)")
        ]
        assert etas == sorted(etas) and etas[0] > 0
        assert all(re.fullmatch(r"ETA \d.*", t) for t in page.locator(".eta").all_inner_texts())
        screenshot(page, "runs-experiment-queue")

        # Its progress page, from the filter.
        page.click(f"a.experiment-link[href='#/experiments/{experiment['id']}']")
        page.wait_for_url(re.compile(rf"#/experiments/{experiment['id']}$"))
        page.locator(".experiment-title").wait_for()
        assert page.inner_text(".experiment-title") == "queued <b>sweep</b>"
        count = "(s) => document.querySelector(`.status-count[data-status=${s}]`)?.innerText.trim()"
        page.wait_for_function(f"() => ({count})('queued') === 'queued 3'")
        assert page.evaluate(f"() => ({count})('running')") == "running 1"
        eta = page.locator("[data-key=overall-eta] dd")
        assert re.fullmatch(r"\d.*", eta.inner_text())  # the last run's ETA
        assert page.locator("[data-key=speed] dd").inner_text().endswith("rounds/s")
        assert page.evaluate(ROWS) == ids
        assert page.get_attribute(f"tr[data-run-id='{ids[0]}'] a", "href") == f"#/runs/{ids[0]}"
        compare = page.locator(".page-head a:has-text('Compare')")
        assert compare.get_attribute("href") == f"#/compare?experiment={experiment['id']}"
        assert page.locator("a:has-text('Reproduction report')").count() == 0
        # It refreshes while the runs are active: the rounds done grow.
        label = "() => document.querySelector('.experiment-progress .progress-label').innerText"
        before = page.evaluate(label)
        page.wait_for_function(f"() => ({label})() !== {before!r}")
        screenshot(page, "experiment")
    finally:
        for run_id in reversed(ids):
            httpx.post(f"{server}/api/runs/{run_id}/cancel", timeout=TIMEOUT)
    for run_id in ids:
        wait_final(server, run_id)
    page.wait_for_function(f"() => ({count})('cancelled') === 'cancelled 4'")
    assert page.inner_text("[data-key=overall-eta] dd") == "done"
    assert page.locator(".eta").count() == 0

    # The compare page's header links to it.
    page.goto(f"{server}/#/compare?experiment={experiment['id']}")
    link = page.locator(".picker a.experiment-link")
    link.wait_for()
    assert link.get_attribute("href") == f"#/experiments/{experiment['id']}"


def test_a_reproduction_links_its_report_and_a_missing_one_says_so(
    serial_page: Any, one_at_a_time: str, page_errors: list[str]
) -> None:
    page, server = serial_page, one_at_a_time
    body = {"name": "done", "base": example1(20), "seeds": [0]}
    experiment = httpx.post(f"{server}/api/experiments", json=body, timeout=TIMEOUT).json()
    wait_final(server, experiment["run_ids"][0])

    def as_reproduction(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, json={**response.json(), "preset": "example1"})

    page.route(re.compile(rf"/api/experiments/{experiment['id']}$"), as_reproduction)
    page.goto(f"{server}/#/experiments/{experiment['id']}")
    report = page.locator(".page-head a:has-text('Reproduction report')")
    report.wait_for()
    assert report.get_attribute("href") == f"#/experiments/{experiment['id']}/reproduction"
    assert page.inner_text("[data-key=overall-eta] dd") == "done"
    assert page.locator(".status-count[data-status=succeeded]").inner_text().strip() == (
        "succeeded 1"
    )

    report.click()  # the report links back to the progress page
    back = f".page-head a.experiment-link[href='#/experiments/{experiment['id']}']"
    page.locator(back).wait_for()

    page.goto(f"{server}/#/experiments/987654")
    page.locator("text=Experiment #987654 does not exist").wait_for()
    # expected: the faked preset's report (the experiment reproduces none), and #987654
    expected = [f"/api/experiments/{experiment['id']}/reproduction", "/api/experiments/987654"]
    page_errors[:] = [
        e
        for e in page_errors
        if not any(e.startswith("404 GET") and e.endswith(x) for x in expected)
    ]


def test_eta_words_and_the_experiment_route(modules_page: Any) -> None:
    out = js(
        modules_page,
        "standing.js",
        """m => [
          {active: true, status: 'queued', queuePosition: 1, etaS: null, roundsPerS: null},
          {active: true, status: 'queued', queuePosition: 2, etaS: 125, roundsPerS: null},
          {active: true, status: 'running', queuePosition: null, etaS: 4.2, roundsPerS: 3},
          {active: false, status: 'succeeded', queuePosition: null, etaS: null, roundsPerS: 9},
        ].map((r) => m.standing(r)?.textContent ?? null)""",
    )
    assert out == ["#1 in queue · ETA –", "#2 in queue · ETA 2 min 5 s", "ETA 4.2 s", None]
    route = js(
        modules_page,
        "router.js",
        "m => ['#/experiments/7', '#/experiments/7/reproduction', '#/experiments/x']"
        ".map(m.parseRoute).map((r) => [r.page, r.id])",
    )
    assert route == [["experiment", 7], ["reproduction", 7], ["runs", None]]
