"""First paint: pages draw their frame and data before Plotly.js arrives (loaded only where
a plot is shown), and the static files come compressed, versioned and cached."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.api.helpers import example1
from tests.frontend.test_pages import POINTS, wait_status

pytestmark = pytest.mark.browser

PLOTLY = re.compile(r"/vendor/plotly\.min\.js")
UNVERSIONED = ("/static/js/app.js", "/static/v-000000000000/js/app.js", "/vendor/plotly.min.js")


@pytest.fixture(scope="module")
def finished(server: str) -> int:
    """A finished 80-round Example 1 run with FedAvg."""
    body = {"config": example1(80, algorithm__name="fedavg")}
    # The first run a server takes may wait for the engine's imports: more than 5 s here.
    run_id: int = httpx.post(f"{server}/api/runs", json=body, timeout=60).json()["id"]
    wait_status(server, run_id, {"succeeded"})
    return run_id


def test_the_runs_page_never_loads_plotly(page: Any, server: str, finished: int) -> None:
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if PLOTLY.search(r.url) else None)
    page.goto(f"{server}/#/runs")
    page.reload()  # a load of its own, watched from the start
    page.wait_for_selector(f"tr[data-run-id='{finished}']")
    fcp = "() => performance.getEntriesByName('first-contentful-paint').length"
    page.wait_for_function(f"() => ({fcp})() === 1")
    page.click("nav a[data-page=new]")  # another page without plots
    page.wait_for_selector(".preset-info, form")
    assert page.evaluate("() => typeof window.Plotly") == "undefined"
    assert asked == []


def test_the_run_page_draws_its_frame_and_summary_before_plotly_arrives(
    page: Any, server: str, finished: int
) -> None:
    held: list[Any] = []  # Plotly's script is answered only once the page was checked
    page.route(PLOTLY, lambda route: held.append(route))
    page.goto(f"{server}/#/runs/{finished}")
    page.wait_for_selector(".run-head .badge[data-status=succeeded]")
    page.wait_for_selector(".summary table tr[data-key=final_param]")
    page.wait_for_selector("[data-plot=curve-param] .state-loading")
    page.wait_for_function("() => document.querySelector('link[rel=preload][as=script]')")
    assert page.locator(".main-svg").count() == 0
    assert page.evaluate("() => typeof window.Plotly") == "undefined"
    page.wait_for_function("() => performance.getEntriesByName('first-contentful-paint').length")
    assert held, "Plotly.js was not asked for"
    for route in held:
        route.continue_()
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) === 80")
    page.wait_for_selector("[data-plot=availability] .main-svg")
    assert page.locator("[data-plot=curve-param] .state").count() == 0
    # The page's own mark and measure of its first plot, after its first paint.
    first_plot, measured, fcp = page.evaluate(
        """() => [performance.getEntriesByName('fedwatch:first-plot')[0].startTime,
                  performance.getEntriesByName('fedwatch:time-to-first-plot')[0].duration,
                  performance.getEntriesByName('first-contentful-paint')[0].startTime]"""
    )
    assert first_plot == pytest.approx(measured) and first_plot > fcp


def test_a_plotly_that_does_not_load_shows_an_error_in_each_plot(
    page: Any, server: str, finished: int, page_errors: list[str]
) -> None:
    page.route(PLOTLY, lambda route: route.abort())
    page.goto(f"{server}/#/runs/{finished}")
    page.wait_for_selector("[data-plot=curve-param] .state-error")
    assert "Plotly.js did not load" in page.inner_text("[data-plot=curve-param]")
    page.wait_for_selector(".summary table tr[data-key=final_param]")  # the rest is there
    page_errors.clear()  # the aborted script


def test_static_files_are_compressed_versioned_and_revalidated(server: str) -> None:
    gzip = {"Accept-Encoding": "gzip"}
    with httpx.Client(base_url=server) as client:
        index = client.get("/", headers=gzip)
        assert index.headers["content-encoding"] == "gzip"
        assert index.headers["cache-control"] == "no-cache"
        assert client.get("/", headers={"If-None-Match": index.headers["etag"]}).status_code == 304
        page = index.text
        app = re.search(r'src="(/static/v-[0-9a-f]{12}/js/app\.js)"', page)
        plotly = re.search(r'content="(/vendor/plotly\.min\.js\?v=[0-9a-f]{12})"', page)
        assert app and plotly, page
        assert 'rel="modulepreload"' in page and "<script src=" not in page  # nothing blocks
        for url in (app.group(1), plotly.group(1)):
            answer = client.get(url, headers=gzip)
            assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert answer.headers["content-encoding"] == "gzip"
            assert answer.headers["vary"] == "Accept-Encoding"
        size = client.get(plotly.group(1), headers=gzip).num_bytes_downloaded
        assert size < 2_000_000  # 4.8 MB as it is
        # Unversioned, or with a version that is not the current one: revalidated.
        for url in UNVERSIONED:
            plain = client.get(url, headers={"Accept-Encoding": "identity"})
            assert plain.headers["cache-control"] == "no-cache"
            assert "content-encoding" not in plain.headers
            again = client.get(url, headers={"If-None-Match": plain.headers["etag"]})
            assert again.status_code == 304 and again.content == b""
        assert client.head(app.group(1)).status_code == 200
        for outside in ("/static/../db/settings.py", "/static/%2e%2e/db/settings.py", "/static/js"):
            assert client.get(outside).status_code == 404


def test_a_warm_load_takes_versioned_files_from_the_cache(
    browser: Any, server: str, finished: int
) -> None:
    context = browser.new_context()
    try:
        for load in ("cold", "warm"):
            page = context.new_page()
            page.goto(f"{server}/#/runs/{finished}")
            page.wait_for_function(
                "() => performance.getEntriesByName('fedwatch:first-plot').length"
            )
            entries = page.evaluate(
                """() => performance.getEntriesByType('resource')
                     .filter((e) => /\\/static\\/v-|\\/vendor\\/plotly/.test(e.name))
                     .map((e) => [new URL(e.name).pathname, e.transferSize, e.encodedBodySize])"""
            )
            page.close()
            # bytes over the wire and body size per file (a preloaded one has two entries)
            sent: dict[str, tuple[int, int]] = {}
            for path, size, body in entries:
                was = sent.get(path, (0, 0))
                sent[path] = (max(was[0], size), max(was[1], body))
            run_page = next(p for p in sent if p.endswith("/js/pages/run/index.js"))
            plotly = next(p for p in sent if "plotly" in p)
            if load == "cold":
                assert all(size > 0 for size, _ in sent.values()), sent
                assert sent[plotly][1] < 2_000_000  # gzip
            else:
                assert all(size == 0 for size, _ in sent.values()), sent  # no request at all
            assert sent[run_page][1] > 0
    finally:
        context.close()
