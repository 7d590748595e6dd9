"""Pure trace builders (frontend/js/traces.js), run in Chromium with hand-computed values."""

from __future__ import annotations

import json
from typing import Any

import pytest
from numpy.testing import assert_allclose

from tests.frontend.conftest import HTML_NAME, js
from worker.engine import RunConfig, metrics
from worker.engine.metrics import MetricSpec

pytestmark = pytest.mark.browser


def test_ema_is_debiased_and_skips_nulls(modules_page: Any) -> None:
    # w = 0.5: s1 = 0.5 / 0.5 = 1; s2 = (0.25 + 1) / 0.75 = 5/3; null stays null and does
    # not move the average; s3 = (0.625 + 1.5) / 0.875 = 17/7.
    out = js(modules_page, "traces.js", "m => m.ema([1, 2, null, 3], 0.5)")
    assert out[2] is None
    assert_allclose([out[0], out[1], out[3]], [1.0, 5 / 3, 17 / 7])
    assert js(modules_page, "traces.js", "m => m.ema([4, null, 6], 0)") == [4, None, 6]


def test_band_is_a_closed_polygon_around_mean(modules_page: Any) -> None:
    out = js(modules_page, "traces.js", "m => m.band([0, 1, 2], [1, null, 2], [0.5, 1, 1])")
    assert out == {"x": [0, 2, 2, 0], "y": [1.5, 3, 1, 0.5]}


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
    assert RunConfig.model_fields  # the registries are loaded
    extra = MetricSpec("plugin_value", "a plug-in's value", panel="algorithm")
    metrics.register([extra])
    try:
        catalogue = json.dumps([s.to_json() for s in metrics.catalogue()])
        specs = json.dumps(  # as api.js reads `GET /api/metrics/panels`
            [
                {"name": p.name, "title": p.title, "yTitle": p.y_title, "log": p.log}
                for p in metrics.panels()
            ]
        )
    finally:
        metrics.unregister([extra.name])
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


def test_envelope_only_where_buckets_merged_rounds(modules_page: Any) -> None:
    series = (
        "new Map([['test_acc', {round: [9, 19], last: [0.5, 0.6], min: [0.4, 0.6],"
        " max: [0.7, 0.6]}],"
        " ['test_loss', {round: [9], last: [1], min: [1], max: [1]}]])"
    )
    traces = js(
        modules_page,
        "traces.js",
        f"m => m.panelTraces({{id: 'x', title: 'x', metrics: ['test_acc', 'test_loss']}},"
        f" {series})",
    )
    assert [(t["meta"]["metric"], t["meta"]["field"]) for t in traces] == [
        ("test_acc", "max"),
        ("test_acc", "min"),
        ("test_acc", "last"),
        ("test_loss", "last"),
    ]
    assert traces[1]["fill"] == "tonexty"
    assert traces[2]["y"] == [0.5, 0.6]


def test_clock_times_interpolate_between_points_of_the_clock_series(modules_page: Any) -> None:
    # wall 1 s at round 0, 10 s at round 9, 30 s at round 19: round 4 -> 1 + 9·4/9 = 5,
    # round 14 -> 10 + 20·5/10 = 20; rounds outside take the first or last value.
    wall = "{round: [0, 9, 19], last: [1, 10, 30], min: [1, 10, 30], max: [1, 10, 30]}"
    out = js(modules_page, "traces.js", f"m => m.timesAt({wall}, [0, 4, 9, 14, 19, 25, -1])")
    assert_allclose(out, [1, 5, 10, 20, 30, 30, 1])
    series = (
        "new Map([['acc', {round: [4, 14], last: [0.5, 0.7], min: [0.5, 0.7], max: [0.5, 0.7]}]])"
    )
    traces = js(
        modules_page,
        "traces.js",
        f"m => m.panelTraces({{id: 'a', title: 'a', metrics: ['acc']}}, {series},"
        f" (r) => m.timesAt({wall}, r))",
    )
    assert_allclose(traces[0]["x"], [5, 20])


def test_extension_appends_each_metric_to_its_traces(modules_page: Any) -> None:
    out = js(
        modules_page,
        "traces.js",
        """m => m.extension(
            [{meta: {metric: 'a'}}, {meta: {metric: 'b'}}, {meta: {metric: 'a'}}],
            [{round: 5, a: 1.5}, {round: 6, a: 2.5, b: 7}])""",
    )
    assert out == {
        "update": {"x": [[5, 6], [6], [5, 6]], "y": [[1.5, 2.5], [7], [1.5, 2.5]]},
        "indices": [0, 1, 2],
    }
    assert (
        js(modules_page, "traces.js", "m => m.extension([{meta: {metric: 'a'}}], [{round: 1}])")
        is None
    )
    by_wall = js(
        modules_page,
        "traces.js",
        "m => m.extension([{meta: {metric: 'a'}}], [{round: 5, wall_s: 2.5, a: 1}], 'wall_s')",
    )
    assert by_wall == {"update": {"x": [[2.5]], "y": [[1]]}, "indices": [0]}


def test_compare_traces_band_per_group_of_several_runs(modules_page: Any) -> None:
    comparison = """{metric: 'param', x: 'round',
      runs: [{id: 1, name: 'a', group: 'fedavg', x: [0, 1], y: [1, 2]},
             {id: 2, name: 'b', group: 'fedavg', x: [0, 1], y: [3, 4]},
             {id: 3, name: 'c', group: 'fedlaavg', x: [0, 1], y: [0, 0]}],
      groups: [{name: 'fedavg', runIds: [1, 2], x: [0, 1], mean: [2, 3], std: [1, 1]},
               {name: 'fedlaavg', runIds: [3], x: [0, 1], mean: [0, 0], std: [0, 0]}],
      table: [], ttests: []}"""
    traces = js(
        modules_page, "traces.js", f"m => m.compareTraces({comparison}, {{showRuns: false}})"
    )
    assert [t["meta"] for t in traces] == [
        {"band": "fedavg"},
        {"group": "fedavg"},
        {"group": "fedlaavg"},
    ]
    assert traces[0]["y"] == [3, 4, 2, 1]
    assert traces[1]["name"] == "fedavg (n=2)"
    with_runs = js(
        modules_page, "traces.js", f"m => m.compareTraces({comparison}, {{showRuns: true}})"
    )
    assert len(with_runs) == 6
    colors = [t["line"]["color"] for t in with_runs]
    # runs 1, 2, 3, the fedavg band, the fedavg mean, the fedlaavg mean
    assert colors[0] == colors[1] == colors[4] != colors[2] == colors[5]
    assert [t["showlegend"] for t in with_runs[:3]] == [False, False, False]
    pending = comparison.replace("x: [0, 1], mean: [0, 0], std: [0, 0]", "x: [], mean: [], std: []")
    empty = js(modules_page, "traces.js", f"m => m.compareTraces({pending}, {{}})")
    assert [t.get("visible") for t in empty] == [None, True, "legendonly"]


def test_rgba_from_hex(modules_page: Any) -> None:
    assert js(modules_page, "traces.js", "m => m.rgba('#1f77b4', 0.2)") == "rgba(31,119,180,0.2)"


def test_group_labels_name_the_swept_field(modules_page: Any) -> None:
    sweep = "['client.lr=0.01', 'client.lr=0.1']"
    assert js(modules_page, "traces.js", f"m => [...m.groupLabels({sweep}).values()]") == [
        "client.lr = 0.01",
        "client.lr = 0.1",
    ]
    mixed = "['algorithm.name=cafed, client.lr=0.3', 'seed=1', 'fedavg', 'a=1,b=2', 'x=[1, -1]']"
    assert js(modules_page, "traces.js", f"m => [...m.groupLabels({mixed}).values()]") == [
        "algorithm.name = cafed, client.lr = 0.3",
        "seed = 1",
        "fedavg",
        "a = 1, b = 2",
        "x=[1, -1]",
    ]


ESCAPED_NAME = '&lt;a href="http://127.0.0.1:9/phish"&gt;Click to re-login&lt;/a&gt;'


def test_plot_text_turns_markup_into_entities(modules_page: Any) -> None:
    cases = {
        HTML_NAME: ESCAPED_NAME,
        "a & b $x$ %{y} 10 %": "a &amp; b &#36;x&#36; &#37;{y} 10 &#37;",
        "&lt; typed": "&amp;lt; typed",
        "TV(α, p̄) · 'q' \"dq\"": "TV(α, p̄) · 'q' \"dq\"",
    }
    out = js(modules_page, "traces.js", f"m => {json.dumps(list(cases))}.map(m.plotText)")
    assert out == list(cases.values())


def test_every_builder_escapes_what_it_shows_and_keeps_meta_raw(modules_page: Any) -> None:
    name = json.dumps(HTML_NAME)
    body = f"""m => {{
      const name = {name};
      const cell = `name=${{name}}`;  // an experiment cell's label; shown as `name = …`
      const runs = [1, 2].map((id) => ({{id, name, group: cell, x: [0], y: [1]}}));
      const c = {{metric: 'm', x: 'round', runs, table: [], ttests: [],
        groups: [{{name: cell, runIds: [1, 2], x: [0], mean: [1], std: [0]}}]}};
      const series = new Map([[name, {{round: [0, 1], last: [1, 2], min: [0, 2], max: [1, 2]}}]]);
      const layout = m.lineLayout(name, {{xTitle: name, yTitle: name}});
      return {{
        compare: m.compareTraces(c, {{showRuns: true}}).map((t) => [t.name, t.meta]),
        panel: m.panelTraces({{id: 'p', title: name, metrics: [name]}}, series)
          .map((t) => [t.name, t.meta.metric]),
        histogram: m.histogramTrace([1], name).name,
        layout: [layout.title.text, layout.xaxis.title.text, layout.yaxis.title.text],
        colorbar: m.matrixTrace({{clients: [3], rounds: [0], values: [[1]]}}, {{zTitle: name}})
          .colorbar.title.text,
      }}; }}"""
    out = js(modules_page, "traces.js", body)
    esc = ESCAPED_NAME
    assert out["compare"] == [
        [f"#1 {esc}", {"run": 1}],
        [f"#2 {esc}", {"run": 2}],
        [f"name = {esc} ± std", {"band": f"name={HTML_NAME}"}],
        [f"name = {esc} (n=2)", {"group": f"name={HTML_NAME}"}],
    ]
    assert out["panel"] == [[f"{esc} max", HTML_NAME], [f"{esc} min", HTML_NAME], [esc, HTML_NAME]]
    assert out["histogram"] == out["colorbar"] == esc
    assert out["layout"] == [esc, esc, esc]


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


def test_equal_lines_of_a_panel_both_show(modules_page: Any) -> None:
    # Every client available was selected: the two participation curves coincide.
    body = """m => {
      const s = {round: [0, 1], last: [3, 3], min: [3, 3], max: [3, 3]};
      const series = new Map([['n_available', s], ['n_selected', s]]);
      const panel = {id: 'clients', title: 'Participation', metrics: ['n_available', 'n_selected']};
      return m.panelTraces(panel, series)
        .map((t) => [t.meta.metric, t.line.width, t.line.dash ?? null]);
    }"""
    available, selected = js(modules_page, "traces.js", body)
    assert available == ["n_available", 3, None]  # drawn first, wider
    assert selected == ["n_selected", 1.8, "dash"]  # on top, thinner and dashed


def test_timeline_trace_colours_each_state_in_its_own_band(modules_page: Any) -> None:
    timeline = """{clients: [0, 2], times: [0, 5], widthS: 5, labels: ['offline', 'online', 'kept'],
        states: [[0, 2], [1, 1]]}"""
    t = js(modules_page, "traces.js", f"m => m.timelineTrace({timeline})")

    # state i sits in the middle of its band [i, i + 1) of a 3-state scale
    assert t["z"] == [[0.5, 2.5], [1.5, 1.5]] and (t["zmin"], t["zmax"]) == (0, 3)
    assert t["x"] == [2.5, 7.5] and t["y"] == ["client 0", "client 2"]
    assert t["text"] == [["offline", "kept"], ["online", "online"]]
    assert t["colorbar"]["ticktext"] == ["offline", "online", "kept"]
    scale = t["colorscale"]
    assert [stop for stop, _ in scale] == pytest.approx([0, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 1])
    assert scale[4][1] == scale[5][1] != scale[3][1]  # one colour per band
