"""The partition view in Chromium: the new-run form previews the partition a config would
make (sizes and clients × classes), an impossible one is an error at its field, and the
run page shows the partition the run trained on."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.helpers import submit, wait_final

pytestmark = pytest.mark.browser

DATA = {"dataset": "digits", "n_clients": 20, "partition": "pathological"}
DRAWN = """(plot) => {
    const d = document.querySelector(`[data-plot="${plot}"]`);
    return d?.data?.length ? {data: d.data, title: d.layout.title.text} : null;
}"""


def drawn(page: Any, plot: str) -> Any:
    # the server reads the dataset for it: its first read imports scikit-learn
    page.wait_for_function(f"() => ({DRAWN})('{plot}')", timeout=120_000)
    return page.evaluate(DRAWN, plot)


def preview(server: str, data: dict[str, Any]) -> Any:
    with httpx.Client(base_url=server, timeout=120) as api:
        return api.post("/api/partition", json={"config": {"data": data}}).json()


def fill_digits(page: Any, server: str, classes: int) -> None:
    page.goto(f"{server}/#/new")
    page.wait_for_selector('[name="data.dataset"]')
    page.select_option('[name="data.dataset"]', "digits")
    page.fill('[name="data.n_clients"]', "20")
    page.select_option('[name="data.partition"]', "pathological")
    page.fill('[name="data.pathological.classes_per_client"]', str(classes))
    page.click("button:has-text('Show partition')")


def test_the_form_previews_sizes_and_classes(page: Any, server: str) -> None:
    expected = preview(server, {**DATA, "pathological": {"classes_per_client": 2}})

    fill_digits(page, server, 2)

    sizes = drawn(page, "partition-sizes")
    classes = drawn(page, "partition-classes")
    assert (sizes["data"][0]["x"], sizes["data"][0]["y"]) == (
        expected["clients"],
        expected["sizes"],
    )
    assert sizes["title"].startswith(f"{expected['total']:,} train samples over 20 clients")
    assert classes["data"][0]["z"] == expected["counts"]
    assert all(sum(1 for c in row if c) == 2 for row in classes["data"][0]["z"])


def test_too_many_classes_is_an_error_at_its_field(page: Any, server: str) -> None:
    fill_digits(page, server, 11)

    field = page.locator('.field[data-path="data.pathological.classes_per_client"]')
    field.locator(".field-error").wait_for(timeout=120_000)
    assert "exceeds the 10 classes of digits" in field.inner_text()
    assert page.locator(".partition-preview").is_hidden()


def test_the_run_page_shows_the_runs_partition(page: Any, server: str) -> None:
    config = {"rounds": 2, "device": "cpu", "data": DATA}
    with httpx.Client(base_url=server) as api:
        run_id = submit(api, config)["id"]
        assert wait_final(api, run_id)["status"] == "succeeded"
        expected = api.get(f"/api/runs/{run_id}/partition").json()

    page.goto(f"{server}/#/runs/{run_id}")

    sizes = drawn(page, "partition-sizes")
    assert sizes["data"][0]["y"] == expected["sizes"]
    assert drawn(page, "partition-classes")["data"][0]["z"] == expected["counts"]
