"""Security headers on every response, and every page working under its
Content-Security-Policy in Chromium (no inline script: a blocked one, or anything else
the policy blocks, is a violation the page reports). The page tests of this folder all
run under the same headers, and fail on a console error, which a violation also is."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from api.headers import CONTENT_SECURITY_POLICY
from tests.api.helpers import example1
from tests.frontend.conftest import watched_page

pytestmark = pytest.mark.browser

HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
}
# Every violation the page reports, from its first script on.
LISTEN = """window.violations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
"""
# ReDoc's sidebar shows a logo from Redocly's CDN: the policy blocks it (ReDoc then hides
# it), and the console says so.
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


def test_every_response_carries_the_headers(server: str) -> None:
    run_id = httpx.post(f"{server}/api/runs", json={"config": example1(3)}).json()["id"]
    with httpx.Client(base_url=server) as client:
        responses = [
            client.get("/"),
            client.get("/static/js/app.js"),
            client.get("/vendor/plotly.min.js"),
            client.get("/docs"),
            client.get("/redoc"),
            client.get("/healthz"),
            client.get("/api/runs"),
            client.get("/api/runs/987654"),  # 404
            client.post("/api/runs", content=b"x" * 2_000_000),  # 413, before the app
        ]
        with client.stream("GET", f"/api/runs/{run_id}/events") as stream:  # event stream
            responses.append(stream)
    for response in responses:
        shown = {name: response.headers.get(name) for name in HEADERS}
        assert shown == HEADERS, (response.request.url, response.status_code)
    assert "script-src 'self' 'unsafe-eval';" in CONTENT_SECURITY_POLICY  # no inline script


@pytest.fixture(scope="module")
def recorded(server: str) -> dict[str, int]:
    """A finished sweep of two runs and a finished reproduction, for the pages to show."""
    body = {"name": "headers", "base": example1(40), "grid": {"algorithm.name": ["fedavg", "mifa"]}}
    experiment = httpx.post(f"{server}/api/experiments", json=body).json()
    reproduction = httpx.post(
        f"{server}/api/presets/cafed-synthetic/reproduce", json={"seeds": [12]}
    ).json()
    return {"experiment": experiment["id"], "run": experiment["run_ids"][0],
            "reproduction": reproduction["id"]}  # fmt: skip


@pytest.fixture
def tour(browser: Any, server: str, page_errors: list[str]) -> Iterator[Any]:
    with watched_page(browser, server, page_errors) as page:
        page.add_init_script(LISTEN)
        page.reload()  # the dashboard again, listened to from its first script
        yield page


PAGES = [
    ("/#/runs", "tr[data-run-id='{run}']"),
    ("/#/new?preset=example1", ".preset-info p"),
    ("/#/runs/{run}", ".run-head .badge[data-status=succeeded]"),
    ("/#/runs/{run}", "[data-plot=availability] .main-svg"),
    ("/#/experiments/{experiment}", ".status-count[data-status=succeeded]"),
    ("/#/compare?experiment={experiment}", ".summary-table tbody tr"),
    # WebGL through regl, which compiles with `Function`: broken without 'unsafe-eval'
    ("/#/compare?experiment={experiment}", "[data-plot=parcoords] .parcoords .axis-title"),
    ("/#/experiments/{reproduction}/reproduction", ".repro-progress:has-text('4 of 4 runs')"),
    ("/#/experiments/{reproduction}/reproduction", "[data-plot=reproduction] .main-svg"),
    ("/docs", ".swagger-ui .opblock-summary-path"),
    ("/redoc", ".api-content h2"),
    # MkDocs' Material theme: its own inline scripts, allowed on /manual only
    ("/manual/guide/compare/", ".md-content h1"),
    ("/manual/", "input.md-search__input"),
]


@pytest.mark.parametrize(("path", "shown"), PAGES)
def test_every_page_works_under_the_policy(
    tour: Any, server: str, recorded: dict[str, int], page_errors: list[str], path: str, shown: str
) -> None:
    tour.goto(server + path.format(**recorded))
    tour.locator(shown.format(**recorded)).first.wait_for(timeout=120_000)
    violations = tour.evaluate("window.violations")
    if path == "/redoc":
        assert violations == [f"img-src {REDOC_LOGO} :0"]
        page_errors[:] = [e for e in page_errors if REDOC_LOGO not in e]
    else:
        assert violations == []
