"""Every validation error of the new-run form at its field, in plain words, all of them in
one submit: cross-field checks beside field errors, an item of a list typed as text at its
list, a sweep's seeds and swept values checked as they are typed (the launch button says
what is wrong), and an error of the base config said once however many runs repeat it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.frontend.conftest import js, screenshot
from tests.frontend.test_pages import open_preset

pytestmark = pytest.mark.browser


def error_at(page: Any, path: str) -> str:
    locator = page.locator(f'[data-path="{path}"] > .field-error')
    locator.wait_for()
    text: str = locator.inner_text()
    return text


def test_every_error_at_its_field_in_one_submit(page: Any, server: str) -> None:
    before = httpx.get(f"{server}/api/runs", timeout=60).json()["count"]
    open_preset(page, server, "example1")
    page.fill('[name="rounds"]', "0")
    page.fill('[name="algorithm.participation"]', "5")  # K = 5 > n_clients = 2
    page.fill('[name="data.mean_estimation.means"]', "1, x")
    page.fill('[name="client.lr"]', "-1")
    page.click("button:has-text('Start run')")
    assert error_at(page, "algorithm.participation") == "K = 5 exceeds data.n_clients = 2"
    assert error_at(page, "rounds") == "must be at least 1"
    assert error_at(page, "data.mean_estimation.means") == 'item 2 ("x"): not a number'
    assert error_at(page, "client.lr") == "must be greater than 0"
    # Nothing at the top of a section, nothing left over under the form.
    assert page.locator(".section > .field-error:visible").count() == 0
    # ... and every one of them listed by Start, each a link to its field.
    summary = page.locator(".form-errors")
    assert summary.locator("strong").inner_text() == "4 fields need fixing:"
    assert sorted(summary.locator("li").all_inner_texts()) == [
        "algorithm.participation: K = 5 exceeds data.n_clients = 2",
        "client.lr: must be greater than 0",
        'data.mean_estimation.means: item 2 ("x"): not a number',
        "rounds: must be at least 1",
    ]
    summary.locator("li a", has_text="rounds:").click()
    page.wait_for_function("() => document.activeElement?.name === 'rounds'")
    assert httpx.get(f"{server}/api/runs", timeout=60).json()["count"] == before
    screenshot(page, "new-run-errors", full_page=False)

    # Fixed, the errors go as the fields change, and the run starts.
    for name, value in [
        ("rounds", "20"),
        ("algorithm.participation", "2"),
        ("data.mean_estimation.means", "1, -1"),
        ("client.lr", "0.01"),
    ]:
        page.fill(f'[name="{name}"]', value)
    assert page.locator(".field.invalid").count() == 0
    page.click("button:has-text('Start run')")
    page.wait_for_url("**/#/runs/*")


def test_sweep_seeds_and_values_are_checked_as_typed(page: Any, server: str) -> None:
    open_preset(page, server, "example1")
    page.click("button.tab:has-text('Sweep')")
    submit = page.locator(".submit-bar button[type=submit]")
    assert submit.inner_text() == "Launch 2 runs"
    page.fill('[name="seeds"]', "0, x")
    assert error_at(page, "seeds") == '"x" is not a whole number'
    assert submit.inner_text() == 'Seeds: "x" is not a whole number' and submit.is_disabled()
    page.fill('[name="seeds"]', "0, -3")
    assert submit.inner_text() == "Seeds: -3 is not a seed (0 to 2147483647)"
    page.fill('[name="seeds"]', "0, 1")
    assert submit.inner_text() == "Launch 2 runs" and submit.is_enabled()
    assert page.locator('[data-path="seeds"] > .field-error').is_hidden()

    page.click("button:has-text('sweep another field')")
    row = page.locator(".sweep-row").last
    row.locator("select").select_option("client.lr")
    assert submit.inner_text() == "client.lr: give at least one value"
    row.locator("input[type=text]").fill("0.1, abc")
    assert row.locator(".field-error").inner_text() == '"abc" is not a number'
    assert submit.inner_text() == 'client.lr: "abc" is not a number' and submit.is_disabled()
    row.locator("input[type=text]").fill("0.1, -1")
    assert submit.inner_text() == "Launch 4 runs"

    # The server's errors, once each: the base config's for every run alike, the swept
    # value's for the runs that have it.
    page.fill('[name="rounds"]', "0")
    page.fill('[name="algorithm.participation"]', "5")
    submit.click()
    assert error_at(page, "rounds") == "must be at least 1"
    assert error_at(page, "algorithm.participation") == "K = 5 exceeds data.n_clients = 2"
    assert row.locator(".field-error").inner_text() == "client.lr=-1: must be greater than 0"
    listed = page.locator(".form-errors li").all_inner_texts()
    assert page.inner_text(".form-errors strong") == "3 fields need fixing:" and len(listed) == 3
    assert submit.inner_text() == "Launch 4 runs" and submit.is_enabled()
    screenshot(page, "new-run-sweep-errors", full_page=False)


def test_plain_words(modules_page: Any) -> None:
    out = js(
        modules_page,
        "field-errors.js",
        """m => [
          ['Input should be a valid number, unable to parse string as a number',
           'Input should be greater than or equal to 1', 'Input should be less than 1',
           "Input should be 'fedavg' or 'mifa'", 'Extra inputs are not permitted',
           'K = 5 exceeds data.n_clients = 2'].map(m.plainMessage),
          m.sweepMessages([
            {path: 'rounds', message: 'client.lr=0.1, seed=0: Input should be greater than 0'},
            {path: 'rounds', message: 'client.lr=1, seed=0: Input should be greater than 0'},
            {path: 'rounds', message: 'client.lr=0.1, seed=1: Input should be greater than 0'},
            {path: 'grid.client.lr', message: 'client.lr=1, seed=0: Input should be less than 1'},
            {path: 'grid.client.lr', message: 'client.lr=1, seed=1: Input should be less than 1'},
            {path: 'name', message: 'String should have at most 200 characters'}], 2),
          ['0, 1', '', '1, 2.5', '3, 2147483648', Array.from({length: 101}, (_, i) => i).join()]
            .map((t) => m.checkSeeds(t).problem),
          m.checkValues('0.1, 1e-3', 'number'), m.checkValues('a, b', 'string')]""",
    )
    assert out == [
        [
            "not a number",
            "must be at least 1",
            "must be less than 1",
            "must be 'fedavg' or 'mifa'",
            "not a setting here",
            "K = 5 exceeds data.n_clients = 2",
        ],
        [
            {"path": "rounds", "message": "must be greater than 0"},
            {"path": "grid.client.lr", "message": "client.lr=1: must be less than 1"},
            {"path": "name", "message": "at most 200 characters"},
        ],
        [
            None,
            "give at least one seed",
            '"2.5" is not a whole number',
            "2147483648 is not a seed (0 to 2147483647)",
            "at most 100 seeds",
        ],
        {"values": [0.1, 0.001], "problem": None},
        {"values": ["a", "b"], "problem": None},
    ]


def test_list_item_errors_land_at_their_list(modules_page: Any) -> None:
    schema = """{type: 'object', properties: {
      means: {anyOf: [{type: 'array', items: {type: 'number'}}, {type: 'null'}], default: null},
      data: {type: 'object', properties: {sizes: {type: 'array', items: {type: 'integer'},
        default: []}}}}}"""
    out = js(
        modules_page,
        "schema-form.js",
        f"""m => {{
          const form = m.schemaForm({schema});
          document.body.replaceChildren(form.element);
          form.set({{means: [1, 'x', 'y'], data: {{sizes: [3]}}}});
          const rest = form.showErrors([
            {{path: 'means.1', message: 'not a number'}},
            {{path: 'means.2', message: 'not a number'}},
            {{path: 'data.sizes.0', message: 'must be at least 4'}},
            {{path: 'data.sizes.x', message: 'elsewhere'}}]);
          const err = (p) => document.querySelector(`[data-path="${{p}}"] .field-error`);
          return [err('means').textContent, err('data.sizes').textContent,
            document.querySelector('[data-path="data"] > .field-error').textContent,
            rest.length]; }}""",
    )
    assert out == [
        'item 2 ("x"): not a number; item 3 ("y"): not a number',
        "item 1 (3): must be at least 4",
        "elsewhere",
        0,
    ]
