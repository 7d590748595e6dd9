"""Trace builders (frontend/js/traces.js) in Chromium: the panels from the catalogue as
the server defines it, and what Plotly shows of escaped strings. The pure builders are
tested with hand-computed values by `node --test` (tests/js/traces.test.js)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.frontend.conftest import HTML_NAME, js
from tests.metrics_probe import metrics_added
from worker.engine import metrics
from worker.engine.metrics import MetricSpec

pytestmark = pytest.mark.browser


def test_panels_follow_the_recorded_metrics(modules_page: Any) -> None:
    example1 = [
        "n_available",
        "n_selected",
        "param",
        "opt_gap",
        "test_loss",
        "train_loss",
        "staleness_mean",
        "tv_bias",
        "wall_s",
        "brand_new",
        "memory_filled",
        "plugin_value",
    ]
    # The catalogue as served (the built-in algorithms' metrics registered with the
    # config), with a plug-in's metric in the same panel as theirs.
    extra = MetricSpec("plugin_value", "a plug-in's value", panel="algorithm")
    with metrics_added(extra):
        catalogue = json.dumps([s.to_json() for s in metrics.catalogue()])
        specs = json.dumps(  # as api.js reads `GET /api/metrics/panels`
            [
                {"name": p.name, "title": p.title, "yTitle": p.y_title, "log": p.log}
                for p in metrics.panels()
            ]
        )
    call = f"m => m.panelsFor({example1}, {catalogue}, {specs})"
    panels = js(modules_page, "traces.js", call)
    assert [p["id"] for p in panels] == [
        "param",
        "gap",
        "loss",
        "bias",
        "staleness",
        "clients",
        "algorithm",
        "m-brand_new",
    ]
    assert panels[2]["metrics"] == ["test_loss", "train_loss"]
    assert panels[0]["metrics"] == ["param"]
    algorithm = (panels[6]["title"], panels[6]["metrics"])
    assert algorithm == ("Algorithm metrics", ["memory_filled", "plugin_value"])
    assert panels[1]["log"] is True


ESCAPED_NAME = '&lt;a href="http://127.0.0.1:9/phish"&gt;Click to re-login&lt;/a&gt;'


# What Plotly makes of markup, entities, templates and TeX: each must read as typed.
TYPED = [
    HTML_NAME,
    "&lt;b&gt; typed as entities",
    "a & b &amp; c &#36; &nbsp;&mu;&unknown; end&",
    "$x^2$ costs $3",
    "x<br>y <b>bold</b> <sup>2</sup> <weird>tag</weird>",
    "x < y > z, 'q' \"dq\", %{y} %{meta.run} 10 %, α → β",
]


def test_plotly_shows_escaped_strings_literally(plotly_page: Any) -> None:
    body = f"""async (m) => {{
      const typed = {json.dumps(TYPED)};
      const runs = typed.map((name, id) =>
        ({{id, name, group: '', x: [0, 1, 2], y: [id, id, id]}}));
      const c = {{metric: 'm', x: 'round', runs, groups: [], table: [], ttests: []}};
      const layout = m.lineLayout(typed[0], {{xTitle: typed[5], yTitle: typed[3], height: 700}});
      const div = document.createElement('div');
      div.id = 'plot';
      document.body.appendChild(div);
      await Plotly.newPlot(div, m.compareTraces(c), layout);
      const text = (sel) => [...div.querySelectorAll(sel)].map((e) => e.textContent);
      return {{legend: text('.legendtext'), title: text('.gtitle'),
               axes: [...text('.xtitle'), ...text('.ytitle')]}};
    }}"""
    shown = js(plotly_page, "traces.js", body)
    assert shown["legend"] == [f"#{i} {name}" for i, name in enumerate(TYPED)]
    assert shown["title"] == [TYPED[0]]
    assert shown["axes"] == [TYPED[5], TYPED[3]]
    box = plotly_page.locator("#plot .nsewdrag").first.bounding_box()  # x = 1 in its middle
    plotly_page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    hover = (
        "() => [...document.querySelectorAll('#plot .hoverlayer text')].map((e) => e.textContent)"
    )
    plotly_page.wait_for_function(f"() => ({hover})().length > {len(TYPED)}")
    lines = plotly_page.evaluate(hover)
    for i, name in enumerate(TYPED):  # whole names: "#i name : y"
        assert f"#{i} {name} : {i}" in lines
    assert plotly_page.locator("#plot svg a").count() == 0
