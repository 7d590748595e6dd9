"""Helper modules of the front end in Chromium, where they need a browser (localStorage,
location) or the server's catalogue: API error mapping and wire conversion, hash routes.
The pure modules run under `node --test` (tests/js)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.frontend.conftest import js

pytestmark = pytest.mark.browser


def test_field_errors_from_pydantic_locations_and_messages(modules_page: Any) -> None:
    detail = """[
      {loc: ['body', 'config', 'algorithm', 'participation'],
       msg: 'Input should be greater than 0'},
      {loc: ['body', 'config'],
       msg: 'Value error, data.mean_estimation.means: 3 values given for 2 clients'},
      {loc: ['body', 'base', 'rounds'], msg: 'Input should be a valid integer'},
      {loc: ['body'], msg: 'Field required'}]"""
    out = js(modules_page, "api.js", f"m => m.fieldErrors({detail})")
    assert out == [
        {"path": "algorithm.participation", "message": "Input should be greater than 0"},
        {"path": "data.mean_estimation.means", "message": "3 values given for 2 clients"},
        {"path": "rounds", "message": "Input should be a valid integer"},
        {"path": "", "message": "Field required"},
    ]
    text = js(modules_page, "api.js", "m => m.fieldErrors('grid.algorithm.name: unknown value')")
    assert text == [{"path": "grid.algorithm.name", "message": "unknown value"}]


def test_run_from_wire(modules_page: Any) -> None:
    run = js(
        modules_page,
        "api.js",
        """m => { const r = m.toRun({id: 3, name: '<b>x</b>', status: 'running', progress: 0.25,
            rounds_done: 1000, rounds_total: 4000, experiment_id: null, active: true,
            created_at: '2024-01-02T03:04:05Z'});
          return {...r, createdAt: r.createdAt.toISOString()}; }""",
    )
    assert run["roundsDone"] == 1000 and run["roundsTotal"] == 4000
    assert run["active"] is True and run["experimentId"] is None and run["finishedAt"] is None
    assert run["createdAt"] == "2024-01-02T03:04:05.000Z"
    assert run["name"] == "<b>x</b>"


def test_attachment_name_from_content_disposition(modules_page: Any) -> None:
    headers = [
        'attachment; filename="run-7.csv"',
        "attachment; filename=run-7.csv; size=10",
        'attachment; filename="a \\"b\\".csv"',
        "attachment; filename=\"fallback.csv\"; filename*=UTF-8''r%C3%A9sum%C3%A9%201.csv",
        "attachment; filename*=UTF-8''%E0%A4%A; filename=plain.csv",
        "attachment",
        None,
    ]
    out = js(modules_page, "api.js", f"m => {json.dumps(headers)}.map(m.attachmentName)")
    assert out == ["run-7.csv", "run-7.csv", 'a "b".csv', "résumé 1.csv", "plain.csv", None, None]


def test_routes(modules_page: Any) -> None:
    route = "r => ({page: r.page, id: r.id, q: Object.fromEntries(r.query)})"
    hashes = (
        "['', '#/runs/12', '#/compare?runs=1,2&x=wall_s', '#/experiments/3/reproduction',"
        " '#/experiments/x/reproduction']"
    )
    parse = f"m => {hashes}.map(m.parseRoute).map({route})"
    assert js(modules_page, "router.js", parse) == [
        {"page": "runs", "id": None, "q": {}},
        {"page": "run", "id": 12, "q": {}},
        {"page": "compare", "id": None, "q": {"runs": "1,2", "x": "wall_s"}},
        {"page": "reproduction", "id": 3, "q": {}},
        {"page": "runs", "id": None, "q": {}},
    ]
    assert js(modules_page, "router.js", "m => m.idList('3, x,0,7,2.5')") == [3, 7]


def test_run_names_from_a_preset_say_what_differs(modules_page: Any) -> None:
    preset = "{name: 'example1', rounds: 4000, algorithm: {name: 'fedlaavg', k: 2}, means: [1, -1]}"
    out = js(
        modules_page,
        "run-name.js",
        f"""m => [
          m.runName('example1', {preset}, {preset}),
          m.runName('example1', {preset},
            {{name: 'example1', rounds: 300, algorithm: {{name: 'fedavg', k: 2}}, means: [1, 0]}}),
          m.runName('mifa (full)', {preset}, {{...{preset}, seed: 3}}),
          m.runName('p', {{}}, {{name: 'p', long: 'x'.repeat(300)}}).length]""",
    )
    assert out == [
        "example1 · fedlaavg",
        "example1 · fedavg · rounds=300 · means=1,0",
        "mifa (full) · fedlaavg · seed=3",
        200,
    ]


def test_a_late_query_update_does_not_undo_a_navigation(modules_page: Any) -> None:
    out = js(
        modules_page,
        "router.js",
        """m => {
          const before = location.hash;
          location.hash = '#/runs?q=a';
          m.replaceQuery('/runs', {q: 'b'});  // the runs page, still shown: updated
          const kept = location.hash;
          location.hash = '#/runs/987654';  // a navigation whose hashchange is pending
          m.replaceQuery('/runs', {q: 'c'});  // the old page's late refresh: ignored
          const navigated = location.hash;
          history.replaceState(null, '', before || '#');
          return [kept, navigated]; }""",
    )
    assert out == ["#/runs?q=b", "#/runs/987654"]


def test_column_choice_is_kept_in_local_storage(modules_page: Any) -> None:
    # Which columns a choice shows: tests/js/columns.test.js.
    saved = js(
        modules_page,
        "columns.js",
        """m => { m.saveChoice('t', {seed: true}); const a = m.loadChoice('t');
          localStorage.setItem('fedwatch.columns.t', '[1]'); const b = m.loadChoice('t');
          localStorage.setItem('fedwatch.columns.t', '{"x": 1, "y": false}');
          const c = m.loadChoice('t'); localStorage.setItem('fedwatch.columns.t', '{');
          const d = m.loadChoice('t'); localStorage.removeItem('fedwatch.columns.t');
          return [a, b, c, d]; }""",
    )
    assert saved == [{"seed": True}, {}, {"y": False}, {}]


def test_config_diff_lines_and_y_range(modules_page: Any) -> None:
    out = js(
        modules_page,
        "compare-view.js",
        """m => [m.configLines(['algorithm.name', 'client.lr', 'data.means', 'model.hidden'],
            {'algorithm.name': ['fedavg'], 'client.lr': [0.01, 0.1], 'data.means': [[1, -1]],
             'model.hidden': [null]}),
          m.configLines(['a'], {})]""",
    )
    assert out == [
        [
            "algorithm.name = fedavg",
            "client.lr = 0.01 | 0.1",
            "data.means = [1,-1]",
            "model.hidden = —",
        ],
        [],
    ]
    ranges = js(
        modules_page,
        "compare-view.js",
        """m => [m.yRange('', '', false), m.yRange('0.5', '0.8', false), m.yRange('0.5', '', false),
          m.yRange(' ', '2', false), m.yRange('0.8', '0.5', false), m.yRange('x', '1', false),
          m.yRange('0.01', '100', true), m.yRange('-1', '10', true), m.yRange('0', '', true)]""",
    )
    assert ranges == [
        None,
        [0.5, 0.8],
        [0.5, None],
        [None, 2],
        None,
        [None, 1],
        [-2, 2],
        [None, 1],
        None,
    ]


def test_parallel_coordinates_of_a_sweep(modules_page: Any) -> None:
    experiments = """[
      {grid: {'client.lr': [0.01, 0.1], 'algorithm.name': ['fedavg', 'mifa']}, cells: []},
      {grid: {'client.lr': [0.5]}, cells: [{label: 'cafed', set: {'algorithm.name': 'cafed',
        'server.lr': 0.3}}, {label: 'b', set: {'data.mean_estimation.means': [1, 0]}}]}]"""
    assert js(modules_page, "compare-view.js", f"m => m.sweptFields({experiments})") == [
        "client.lr",
        "algorithm.name",
        "server.lr",
        "data.mean_estimation.means",
    ]
    runs = """[
      {id: 1, config: {client: {lr: 0.01}, algorithm: {name: 'mifa'}}, summary: {acc: 0.7}},
      {id: 2, config: {client: {lr: 0.1}, algorithm: {name: 'fedavg'}}, summary: {acc: 0.9}},
      {id: 3, config: {client: {lr: 0.1}, algorithm: {name: '<b>x</b>'}}, summary: {acc: 0.8}},
      {id: 4, config: {client: {lr: 0.1}}, summary: {acc: null}},
      {id: 5, config: {client: {lr: 0.01}}, summary: {acc: 0.6}},
      {id: 6, config: null, summary: null}]"""
    trace = js(
        modules_page,
        "compare-view.js",
        f"""m => m.parcoordsTrace(['client.lr', 'algorithm.name'], {runs}, 'acc',
              {{label: 'accuracy <%>', better: 'lower'}})""",
    )
    assert trace["type"] == "parcoords"
    assert trace["meta"]["runs"] == [1, 2, 3, 5]  # one line per run with the value
    lr, algorithm, value = trace["dimensions"]
    assert lr == {
        "label": "client.lr",
        "values": [0.01, 0.1, 0.1, 0.01],
        "range": [0.01, 0.1],
        "tickvals": [0.01, 0.1],
        "ticktext": ["0.01", "0.1"],
    }
    # Categorical: sorted labels as ticks (plain text to parcoords), a missing field "—".
    assert algorithm["ticktext"] == ["<b>x</b>", "fedavg", "mifa", "—"]
    assert algorithm["values"] == [2, 1, 0, 3] and algorithm["tickvals"] == [0, 1, 2, 3]
    # Axis labels are HTML to Plotly: escaped.
    assert value == {"label": "accuracy &lt;&#37;&gt;", "values": [0.7, 0.9, 0.8, 0.6]}
    assert trace["line"]["color"] == [0.7, 0.9, 0.8, 0.6] and trace["line"]["reversescale"]
    one = js(
        modules_page,
        "compare-view.js",
        "m => m.parcoordsTrace(['r'], [{id: 1, config: {r: 0.2}, summary: {v: 1}}], 'v')",
    )
    assert one["dimensions"][0]["range"] == pytest.approx([0.1, 0.3])  # one value: padded
