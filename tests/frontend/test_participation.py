"""The run page's participation view in Chromium: with a system model, each client's
device time against its kept and dropped updates and the fifths' gaps by device time;
without one, its updates against its availability, and the view says it has no device
times."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.helpers import submit, wait_final
from tests.frontend.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLOT = '(plot) => document.querySelector(`[data-plot="${plot}"]`)'


def finished(server: str, config: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    with httpx.Client(base_url=server) as api:
        run_id: int = submit(api, config)["id"]
        assert wait_final(api, run_id)["status"] == "succeeded"
        return run_id, api.get(f"/api/runs/{run_id}/participation").json()


DRAWN = """(plot) => {
    const d = document.querySelector(`[data-plot="${plot}"]`);
    return {data: d.data, title: d.layout.title.text, x: d.layout.xaxis.title.text};
}"""


def drawn(page: Any, plot: str) -> Any:
    page.wait_for_function(f"() => ({PLOT})('{plot}')?.data?.length")
    return page.evaluate(DRAWN, plot)


def test_the_view_links_device_time_to_kept_and_dropped_updates(page: Any, server: str) -> None:
    # 10 clients on devices of lognormal speed, 5 a round, a deadline the slow ones miss
    config = {
        "name": "deadline",
        "rounds": 8,
        "device": "cpu",
        "data": {"n_clients": 10},
        "algorithm": {"name": "fedavg", "participation": 5},
        "system": {"kind": "profiles", "profiles": {"compute_spread": 1.0}},
        "round": {"deadline_s": 0.6},
    }
    run_id, part = finished(server, config)
    assert sum(part["dropped"]) > 0  # the deadline dropped some updates

    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_selector(".run-head .badge[data-status=succeeded]")

    outcomes = drawn(page, "participation-outcomes")
    assert outcomes["x"] == "device time for a round (s)"
    by_name = {t["name"]: t for t in outcomes["data"]}
    assert by_name["kept"]["x"] == pytest.approx(part["work_s"])
    assert (by_name["kept"]["y"], by_name["dropped"]["y"]) == (part["kept"], part["dropped"])
    assert "device time" in outcomes["title"]
    gaps = drawn(page, "participation-gaps")
    speed = next(t for t in gaps["data"] if t["name"] == "device time")
    assert speed["y"] == pytest.approx([100 * b["gap"] for b in part["by_device_time"]])
    assert "by device time (every client available as often)" in gaps["title"]
    assert gaps["x"].startswith("fifths of the clients: 1st = least available / slowest")
    shares = drawn(page, "participation")
    assert "bias TV(α, p̄)" in shares["title"]
    assert shares["data"][0]["y"] == pytest.approx(part["aggregate_share"])
    screenshot(page, "run-participation")


def test_without_a_system_model_the_view_says_it_has_no_device_times(
    page: Any, server: str
) -> None:
    config = {
        "name": "no clock",
        "rounds": 6,
        "device": "cpu",
        "data": {"n_clients": 8},
        "availability": {"kind": "bernoulli", "bernoulli": {"profile": "uniform", "p_min": 0.2}},
        "algorithm": {"name": "fedavg", "participation": 3},
    }
    run_id, part = finished(server, config)
    assert part["work_s"] is None and part["by_device_time"] is None

    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_selector(".run-head .badge[data-status=succeeded]")

    outcomes = drawn(page, "participation-outcomes")
    assert outcomes["title"].startswith("No system model, so no device times")
    assert outcomes["x"] == "share of rounds available"
    kept = next(t for t in outcomes["data"] if t["name"] == "kept")
    assert kept["x"] == pytest.approx(part["available_share"])
    gaps = drawn(page, "participation-gaps")
    assert [t["name"] for t in gaps["data"]] == ["availability"]
    assert "no device times: no system model" in gaps["title"]
