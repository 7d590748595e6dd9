"""The schema-generated form (frontend/js/schema-form.js) on a small pydantic-style schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import Field

from tests.frontend.conftest import js
from worker.engine import registry, run_config_for
from worker.engine.algorithms.fedavg import FedAvg
from worker.engine.availability.base import Always
from worker.engine.components import builtin
from worker.engine.facts import DatasetFacts
from worker.engine.params import Params

pytestmark = pytest.mark.browser

SCHEMA = """{
  $defs: {
    Fedar: {type: 'object', properties: {rho: {type: 'number', default: 0.1, minimum: 0}}},
    Mifa: {type: 'object', properties: {
      init: {type: 'string', enum: ['zero', 'wait_all'], default: 'zero'}}},
    Algo: {type: 'object', properties: {
      name: {type: 'string', enum: ['fedavg', 'fedar', 'mifa'], default: 'fedavg'},
      k: {type: 'integer', default: 10, exclusiveMinimum: 0, description: 'K per round.'},
      fedar: {$ref: '#/$defs/Fedar'}, mifa: {$ref: '#/$defs/Mifa'}}},
  },
  type: 'object',
  properties: {
    name: {type: 'string', default: 'run', maxLength: 200},
    target: {anyOf: [{type: 'number', maximum: 1}, {type: 'null'}], default: null},
    means: {anyOf: [{type: 'array', items: {type: 'number'}}, {type: 'null'}], default: null},
    download: {type: 'boolean', default: false},
    algorithm: {$ref: '#/$defs/Algo'},
  }}"""

BUILD = f"""m => {{
  const form = m.schemaForm({SCHEMA});
  document.body.replaceChildren(form.element);
  const visible = (p) => !document.querySelector(`[data-path="${{p}}"]`).closest('[hidden]');
  const set = (p, v) => {{ const el = document.querySelector(`[name="${{p}}"]`); el.value = v;
    el.dispatchEvent(new Event('change')); }};
  return {{form, visible, set}};
}}"""


def test_defaults_types_and_nullables(modules_page: Any) -> None:
    out = js(modules_page, "schema-form.js", f"m => ({BUILD})(m).form.value()")
    assert out == {
        "name": "run",
        "target": None,
        "means": None,
        "download": False,
        "algorithm": {"name": "fedavg", "k": 10, "fedar": {"rho": 0.1}, "mifa": {"init": "zero"}},
    }
    edited = js(
        modules_page,
        "schema-form.js",
        f"""m => {{ const f = ({BUILD})(m); f.set('means', '1, -1'); f.set('target', '0.8');
             f.set('algorithm.k', '4'); return f.form.value(); }}""",
    )
    assert edited["means"] == [1, -1] and edited["target"] == 0.8 and edited["algorithm"]["k"] == 4


def test_only_the_selected_algorithm_parameters_show(modules_page: Any) -> None:
    out = js(
        modules_page,
        "schema-form.js",
        f"""m => {{ const f = ({BUILD})(m);
             const shown = () => ['algorithm.fedar.rho', 'algorithm.mifa.init'].map(f.visible);
             const before = shown();
             f.set('algorithm.name', 'fedar');
             const after = shown();
             f.form.set({{algorithm: {{name: 'mifa'}}}});
             return [before, after, shown()]; }}""",
    )
    assert out == [[False, False], [True, False], [False, True]]


def test_errors_land_next_to_their_fields(modules_page: Any) -> None:
    out = js(
        modules_page,
        "schema-form.js",
        f"""m => {{ const f = ({BUILD})(m);
             const rest = f.form.showErrors([
               {{path: 'algorithm.k', message: 'must be > 0'}},
               {{path: 'algorithm.fedar.rho', message: 'hidden field'}},
               {{path: 'algorithm', message: 'whole section'}},
               {{path: '', message: 'root'}}]);
             const err = (p) =>
               document.querySelector(`[data-path="${{p}}"] .field-error`).textContent;
             return {{k: err('algorithm.k'), rest: rest.map((e) => e.path)}}; }}""",
    )
    assert out == {"k": "must be > 0", "rest": ["algorithm.fedar.rho", ""]}


def test_text_is_never_parsed_as_html(modules_page: Any) -> None:
    out = js(
        modules_page,
        "dom.js",
        "m => { const el = m.h('td', {}, '<img src=x onerror=alert(1)>'); "
        "return [el.children.length, el.textContent]; }",
    )
    assert out == [0, "<img src=x onerror=alert(1)>"]


@pytest.fixture
def plugin_schema() -> Iterator[dict[str, Any]]:
    """The real run-config schema with one component with params in each registry, as
    a plug-in registers them."""

    class Speed(Params):
        speed: float = Field(1.0, gt=0)

    facts = DatasetFacts(2, "vector", "generated")
    toys = [
        registry.declare(registry.ALGORITHM, "toyalgo", FedAvg, params=Speed),
        registry.declare(registry.AVAILABILITY, "toyavail", Always, params=Speed),
        registry.declare(
            registry.DATASET, "toyset", lambda p, d, rng: None, params=Speed, facts=facts
        ),
        registry.declare(registry.MODEL, "toymodel", lambda p, m, shape, n: None, params=Speed),
    ]
    yield run_config_for(builtin().include(*toys)).model_json_schema()


def test_plugin_sub_objects_follow_their_selectors(modules_page: Any, plugin_schema: Any) -> None:
    out = js(
        modules_page,
        "schema-form.js",
        f"""m => {{
          const form = m.schemaForm({json.dumps(plugin_schema)});
          document.body.replaceChildren(form.element);
          const paths = ['algorithm.toyalgo.speed', 'availability.toyavail.speed',
                         'data.toyset.speed', 'model.toymodel.speed'];
          const shown = () => paths.map((p) =>
            !document.querySelector(`[data-path="${{p}}"]`).closest('[hidden]'));
          const before = shown();
          form.set({{algorithm: {{name: 'toyalgo'}}, availability: {{kind: 'toyavail'}},
                     data: {{dataset: 'toyset'}}, model: {{name: 'toymodel'}}}});
          return [before, shown(), form.value().data.toyset]; }}""",
    )
    assert out == [[False] * 4, [True] * 4, {"speed": 1.0}]
