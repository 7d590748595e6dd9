"""The run page of FedLaAvg's Example 1: x averaged over the last availability period (the
paper's 0.5 for FedAvg) in the summary, the preset's reference lines on the x chart, and
only the summary rows, facts and config values that say something."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.api.helpers import example1
from tests.frontend.conftest import js
from tests.frontend.test_pages import POINTS, wait_status

pytestmark = pytest.mark.browser

SHAPES = """(plot) => {
  const gd = document.querySelector(`[data-plot="${plot}"]`);
  return [(gd.layout.shapes || []).map((s) => [s.y0, s.y1, s.line.dash]),
          (gd.layout.annotations || []).map((a) => a.text)];
}"""


def test_example1_run_shows_the_period_average_and_the_reference_lines(
    page: Any, server: str
) -> None:
    with httpx.Client(base_url=server, timeout=60) as api:
        fedavg = api.post("/api/runs", json={"config": example1(1200, algorithm__name="fedavg")})
        # Other means: neither the limit 0.5 nor the optimum 0 holds; no lines.
        other = example1(40, algorithm__name="fedavg", data__means="[1, 0]")
        moved = api.post("/api/runs", json={"config": other}).json()["id"]
        run_id = fedavg.json()["id"]
        references = api.get("/api/presets/example1").json()["references"]
        assert references == {
            "param": [
                {"value": 0.5, "label": "FedAvg's limit 0.5"},
                {"value": 0.0, "label": "optimum x* = 0"},
            ]
        }
        run = wait_status(server, run_id, {"succeeded"})
        assert run["references"] == references
        assert run["summary"]["period_avg_param"] == pytest.approx(0.5, abs=1e-3)
        assert run["summary"]["stopped"] is False
        assert wait_status(server, moved, {"succeeded"})["references"] == {}

    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) > 0")
    shapes, labels = page.evaluate(SHAPES, "curve-param")
    assert shapes == [[0.5, 0.5, "dash"], [0, 0, "dash"]]
    assert labels == ["FedAvg's limit 0.5", "optimum x* = 0"]
    assert page.evaluate(SHAPES, "curve-gap") == [[], []]

    # The summary: the period average after the final x, then only rows with a value.
    rows = page.locator(".summary tr")
    keys = [rows.nth(i).get_attribute("data-key") for i in range(rows.count())]
    assert keys[keys.index("final_param") + 1] == "period_avg_param"
    assert page.inner_text(".summary tr[data-key=period_avg_param] td") == "0.5"
    assert page.inner_text(".summary tr[data-key=period_avg_param] th") == (
        "x, mean over the last period"
    )
    assert "stopped" not in keys and "rounds_done" not in keys  # the head says it
    assert "best_test_acc" not in keys  # no accuracy in a mean estimation
    assert all(t not in ("", "—") for t in page.locator(".summary td").all_inner_texts())
    assert "—" not in page.locator(".run-head .facts dd").all_inner_texts()

    # The config shows what the run uses; the whole of it is one click away.
    shown = json.loads(page.inner_text(".config > pre.config-json"))
    assert shown["algorithm"] == {
        "name": "fedavg",
        "participation": 2,
        "weights": "uniform",
        "fedavg": {"wait_for_all": False, "rescale_partial": False},
    }
    assert "synthetic_clustered" not in shown["data"] and "bernoulli" not in shown["availability"]
    assert shown["availability"]["diurnal"]["period"] == 30
    assert "null" not in page.inner_text(".config > pre.config-json")
    page.click(".config-full > summary")
    full = json.loads(page.inner_text(".config-full pre"))
    assert "cafed" in full["algorithm"] and full["data"]["seed"] is None

    page.goto(f"{server}/#/runs/{moved}")
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) === 40")
    assert page.evaluate(SHAPES, "curve-param") == [[], []]
    # 40 rounds are one period, recorded whole: its average is there too.
    page.wait_for_selector(".summary tr[data-key=period_avg_param]")


def test_reference_lines_are_dashed_and_labelled_as_text(modules_page: Any) -> None:
    out = js(
        modules_page,
        "traces.js",
        "m => m.referenceLines([{value: 0.5, label: 'limit <b>&</b>'}, {value: 0, label: 'x*'}])",
    )
    assert [(s["y0"], s["y1"], s["xref"], s["line"]["dash"]) for s in out["shapes"]] == [
        (0.5, 0.5, "paper", "dash"),
        (0, 0, "paper", "dash"),
    ]
    assert [a["text"] for a in out["annotations"]] == ["limit &lt;b&gt;&amp;&lt;/b&gt;", "x*"]
    assert js(modules_page, "traces.js", "m => m.referenceLines([])") == {
        "shapes": [],
        "annotations": [],
    }


def test_the_config_shown_keeps_what_the_run_uses(modules_page: Any) -> None:
    config: dict[str, Any] = {
        "name": "r",
        "seed": None,
        "algorithm": {
            "name": "cafed",
            "participation": 2,
            "cafed": {"beta": 0.1, "prior": None},
            "mifa": {"init": "zero"},
        },
        "data": {"dataset": "mnist", "means": None, "sizes": [1, 2], "mnist": {}},
        "eval": {"every": 1, "target_acc": None},
    }
    out = js(modules_page, "pages/run/state.js", f"m => m.essentialConfig({json.dumps(config)})")
    assert out == {
        "name": "r",
        "algorithm": {"name": "cafed", "participation": 2, "cafed": {"beta": 0.1}},
        "data": {"dataset": "mnist", "sizes": [1, 2], "mnist": {}},
        "eval": {"every": 1},
    }
