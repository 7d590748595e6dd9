"""The API docs render in Chromium with no network but the server: Swagger UI at /docs and
ReDoc at /redoc, their scripts served by FedWatch itself. Screenshots in
artifacts/screenshots/."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.frontend.conftest import screenshot

pytestmark = pytest.mark.browser

# ReDoc's sidebar links to Redocly with a logo from its CDN, which it hides when the logo
# does not load; nothing else may be asked of another host.
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@pytest.fixture
def offline_page(browser: Any, server: str) -> Iterator[tuple[Any, list[str]]]:
    """A page that can reach the server only; the URLs it tried elsewhere are listed."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    origin = urlsplit(server).netloc
    elsewhere: list[str] = []

    def only_the_server(route: Any) -> None:
        if urlsplit(route.request.url).netloc == origin:
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort("internetdisconnected")

    context.route("**/*", only_the_server)
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page, elsewhere
    context.close()


def test_swagger_ui_renders_offline(offline_page: tuple[Any, list[str]], server: str) -> None:
    page, elsewhere = offline_page
    page.goto(f"{server}/docs")
    page.wait_for_selector(".swagger-ui .opblock-summary-path")
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/runs/{run_id}/cancel" in [p.replace("\u200b", "") for p in paths]
    page.click("#operations-runs-create_run_api_runs_post .opblock-summary")
    page.wait_for_selector("#operations-runs-create_run_api_runs_post .responses-table")
    codes = page.locator("#operations-runs-create_run_api_runs_post .response-col_status")
    assert {"201", "413", "422"} <= {c.strip() for c in codes.all_inner_texts()}
    screenshot(page, "api-docs-swagger", full_page=False)
    assert elsewhere == []


def test_redoc_renders_offline(offline_page: tuple[Any, list[str]], server: str) -> None:
    page, elsewhere = offline_page
    page.goto(f"{server}/redoc")
    page.wait_for_selector(".api-content h2")
    headings = page.locator(".api-content h2").all_inner_texts()
    assert "Create Run" in headings and "Cancel" in headings
    screenshot(page, "api-docs-redoc", full_page=False)
    assert set(elsewhere) <= {REDOC_LOGO}
