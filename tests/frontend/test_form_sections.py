"""The schema form's bound hints and its sections: a hint reads the schema's own bound
(exclusiveMinimum "> 0", minimum "≥ 0"), and a section with no field to show is not
drawn (the round's, whose fields apply to some system models only)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.frontend.conftest import js

pytestmark = pytest.mark.browser

SCHEMA = """{
  type: 'object',
  properties: {
    client: {type: 'object', properties: {
      lr: {type: 'number', default: 0.01, exclusiveMinimum: 0},
      decay: {type: 'number', default: 0, minimum: 0, exclusiveMaximum: 1}}},
    system: {type: 'object', properties: {
      kind: {type: 'string', enum: ['none', 'fedscale'], default: 'none'}}},
    round: {type: 'object', properties: {
      deadline_s: {type: 'number', default: 1, 'x-applies': {'system.kind': ['fedscale']}}}},
    empty: {type: 'object', properties: {}},
  }}"""

BUILD = f"""m => {{
  const form = m.schemaForm({SCHEMA});
  document.body.replaceChildren(form.element);
  const hint = (p) => document.querySelector(`[data-path="${{p}}"] .help`).textContent;
  const drawn = (p) => !document.querySelector(`fieldset[data-path="${{p}}"]`).closest('[hidden]');
  const choose = (v) => {{ const el = document.querySelector('[name="system.kind"]'); el.value = v;
    el.dispatchEvent(new Event('change')); }};
  return {{form, hint, drawn, choose}};
}}"""


def test_bounds_of_each_keyword(modules_page: Any) -> None:
    out = js(
        modules_page,
        "schema-form.js",
        """m => [{exclusiveMinimum: 0}, {minimum: 0}, {minimum: -1, maximum: 2},
                 {exclusiveMinimum: 0, exclusiveMaximum: 1}, {}].map(m.bounds)""",
    )
    assert out == [
        {"hint": "> 0", "min": None, "max": None},  # HTML's min is inclusive: none
        {"hint": "≥ 0", "min": "0", "max": None},
        {"hint": "≥ -1, ≤ 2", "min": "-1", "max": "2"},
        {"hint": "> 0, < 1", "min": None, "max": None},
        {"hint": "", "min": None, "max": None},
    ]


def test_bound_hints_read_the_schema(modules_page: Any) -> None:
    out = js(
        modules_page,
        "schema-form.js",
        f"""m => {{ const f = ({BUILD})(m);
          const lr = document.querySelector('[name="client.lr"]');
          return [f.hint('client.lr'), f.hint('client.decay'), lr.getAttribute('min')]; }}""",
    )
    assert out == ["> 0", "≥ 0, < 1", None]  # no min="0": it would step to 0


def test_a_section_with_no_field_to_show_is_not_drawn(modules_page: Any) -> None:
    out = js(
        modules_page,
        "schema-form.js",
        f"""m => {{
          const f = ({BUILD})(m);
          const before = ['client', 'system', 'round', 'empty'].map(f.drawn);
          f.choose('fedscale');
          const chosen = f.drawn('round');
          f.choose('none');
          return [before, chosen, f.drawn('round')];
        }}""",
    )
    assert out == [[True, True, False, False], True, False]


def test_the_run_form_has_no_empty_round_card_and_hints_lr_above_0(page: Any, server: str) -> None:
    page.goto(f"{server}/#/new")
    lr = page.locator('.field[data-path="client.lr"] .help')
    lr.wait_for()
    assert "> 0" in lr.inner_text() and "≥ 0" not in lr.inner_text()
    assert page.get_attribute('input[name="client.lr"]', "min") is None
    assert page.locator('fieldset[data-path="round"]').is_hidden()
