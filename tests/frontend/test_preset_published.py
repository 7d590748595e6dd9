"""The new-run form shows a preset's published figures with their source and what
differs, as the API serves them; a preset without any shows neither line."""

from __future__ import annotations

from typing import Any

import httpx

from tests.frontend.test_pages import open_preset


def test_the_form_shows_a_presets_published_figures_and_source(page: Any, server: str) -> None:
    preset = httpx.get(f"{server}/api/presets/niid-bench-cifar10").json()
    open_preset(page, server, "niid-bench-cifar10")

    published = page.locator(".preset-info .published")
    published.wait_for()
    assert published.inner_text() == (
        "Published: fedavg max 62.47 %; scaffold max 68.08 %; fednova max 63.89 % "
        f"({preset['source']})."
    )
    differs = page.locator(".preset-info .differs").inner_text()
    assert differs == f"Differs: {preset['differs']}."

    open_preset(page, server, "cifar10-dirichlet")
    page.locator(".preset-info .help", has_text="Bernoulli uniform").wait_for()
    assert page.locator(".preset-info .published").count() == 0
    assert page.locator(".preset-info .differs").count() == 0
