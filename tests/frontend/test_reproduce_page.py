"""A paper preset reproduced from the new-run page (Reproduce: confirmed in the page, an
experiment of every method × the paper's seeds), its report page (tables per figure against
the bundled official runs, curves solid and dashed), and its Compare button posting the
methods as cells that keep each method's settings."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.frontend.conftest import screenshot
from tests.frontend.test_pages import open_preset, wait_status

pytestmark = pytest.mark.browser

PRESET = "cafed-synthetic"
# the std to 2 significant digits, the mean to the same place (worker/results/numbers.py)
OFFICIAL_TIME_AVG = {"cafed": "71.79", "unbiased": "71.4", "adafed": "72.01", "f3ast": "71.4"}
FINAL = {"succeeded", "failed", "cancelled"}


def with_settings(page: Any, server: str, settings: dict[str, dict[str, Any]]) -> None:
    """Serve the preset with `settings` merged into its methods' sets."""

    def handle(route: Any) -> None:
        response = route.fetch()
        preset = response.json()
        for method in preset["methods"]:
            method["set"] = {**method["set"], **settings.get(method["algorithm"], {})}
        route.fulfill(response=response, json=preset)

    page.route(f"{server}/api/presets/{PRESET}", handle)


def test_reproduce_button_confirms_then_creates_every_method_times_the_seeds(
    page: Any, server: str
) -> None:
    preset = httpx.get(f"{server}/api/presets/{PRESET}").json()
    n = len(preset["methods"]) * len(preset["seeds"])
    open_preset(page, server, PRESET)
    page.click("button:has-text('Reproduce')")
    box = page.locator(".confirm-box")
    assert f"4 methods × {len(preset['seeds'])} seeds = {n} runs" in box.inner_text()
    box.locator("button:has-text('Cancel')").click()
    box.wait_for(state="hidden")
    page.click("button:has-text('Reproduce')")
    box.locator(f"button:has-text('Launch {n} runs')").click()
    page.wait_for_url(re.compile(r"#/experiments/\d+/reproduction$"))
    experiment_id = int(page.url.rsplit("/", 2)[1])
    page.locator("h1", has_text=f"Reproduction: {PRESET}").wait_for()

    experiment = httpx.get(f"{server}/api/experiments/{experiment_id}").json()
    assert experiment["preset"] == PRESET and len(experiment["run_ids"]) == n
    for run_id in experiment["run_ids"]:  # the page test runs one seed of each
        httpx.post(f"{server}/api/runs/{run_id}/cancel")
    for run_id in experiment["run_ids"]:
        wait_status(server, run_id, FINAL)


def test_reproduction_page_reports_against_the_official_runs(page: Any, server: str) -> None:
    response = httpx.post(f"{server}/api/presets/{PRESET}/reproduce", json={"seeds": [12]})
    assert response.status_code == 201, response.text
    experiment_id = response.json()["id"]
    page.goto(f"{server}/#/experiments/{experiment_id}/reproduction")
    page.locator(".repro-progress", has_text="4 of 4 runs").wait_for(timeout=120_000)

    sections = page.locator("section[data-figure]")
    assert sections.evaluate_all("els => els.map((e) => e.dataset.figure)") == [
        "time_avg",
        "max",
        "std_second_half",
    ]
    rows = page.locator("section[data-figure=time_avg] tbody tr")
    assert rows.count() == 4
    official = {
        rows.nth(i).get_attribute("data-algorithm"): rows.nth(i)
        .locator("td[data-key=official]")
        .inner_text()
        for i in range(4)
    }
    assert {k: v.split(" ")[0] for k, v in official.items()} == OFFICIAL_TIME_AVG
    assert all(v.endswith("(n=3)") for v in official.values())
    ours = rows.first.locator("td[data-key=fedwatch]").inner_text()
    assert re.fullmatch(r"\d+(\.\d\d)? \(n=1\)", ours)  # one seed: 4 significant digits
    delta = rows.first.locator("td[data-key=delta]").inner_text()
    assert re.fullmatch(r"[+-]\d+\.\d+", delta)  # 4 significant digits, no p: one seed
    assert page.locator(".curve-rmse li").count() == 4

    plot = "document.querySelector('[data-plot=reproduction]')"
    page.wait_for_function(f"() => {plot}?.data?.length === 8")
    traces = page.evaluate(
        f"() => {plot}.data.map((t) => [t.meta.algorithm, t.meta.source, t.line.dash, "
        "t.line.color])"
    )
    assert (
        sorted((t[1], t[2]) for t in traces)
        == [("fedwatch", "solid")] * 4 + [("official", "dash")] * 4
    )
    colours: dict[str, set[str]] = {}
    for algorithm, _, _, colour in traces:
        colours.setdefault(algorithm, set()).add(colour)
    assert all(len(c) == 1 for c in colours.values()) and len(colours) == 4
    screenshot(page, "reproduction-cafed-synthetic")

    # The experiment's compare view links to its report.
    page.goto(f"{server}/#/compare?experiment={experiment_id}")
    page.click("a.report-link:has-text('Reproduction report')")  # next to "Progress"
    page.wait_for_url(re.compile(rf"#/experiments/{experiment_id}/reproduction$"))
    page.locator(".repro-progress", has_text="4 of 4 runs").wait_for()


def test_a_plain_experiment_has_no_report(page: Any, server: str, page_errors: list[str]) -> None:
    reply = httpx.post(f"{server}/api/experiments", json={"name": "plain", "base": {"rounds": 1}})
    experiment_id = reply.json()["id"]
    page.goto(f"{server}/#/experiments/{experiment_id}/reproduction")
    page.locator(".state-empty", has_text="has no reproduction report").wait_for()
    assert "reproduces no preset" in page.inner_text(".state-empty")
    page_errors[:] = [e for e in page_errors if "/reproduction" not in e]
    wait_status(server, reply.json()["run_ids"][0], FINAL)


def test_compare_posts_the_methods_as_cells_with_their_settings(page: Any, server: str) -> None:
    """The preset's own settings: CA-Fed's scripts tune the learning rates per method."""
    open_preset(page, server, PRESET)
    page.fill('[name="rounds"]', "10")
    page.click("button:has-text('Compare cafed')")
    cells = page.locator(".sweep-cell")
    assert cells.first.inner_text().startswith("cafed — client.lr = 0.01")
    assert cells.count() == 4 and page.locator(".sweep-row").count() == 0
    page.locator("button:has-text('Launch 12 runs')").wait_for()  # 4 methods × 3 seeds
    page.click(".sweep-cell[data-label=f3ast] button:has-text('remove')")
    page.locator("button:has-text('Launch 9 runs')").wait_for()
    page.fill('[name="seeds"]', "0")
    page.click("button:has-text('Launch 3 runs')")
    page.wait_for_url(re.compile(r"#/compare\?experiment=\d+"))

    experiment_id = int(re.findall(r"experiment=(\d+)", page.url)[0])  # before group_by=…
    experiment = httpx.get(f"{server}/api/experiments/{experiment_id}").json()
    assert [c["label"] for c in experiment["cells"]] == ["cafed", "unbiased", "adafed"]
    assert experiment["grid"] == {} and experiment["seeds"] == [0]
    runs = [wait_status(server, i, FINAL) for i in experiment["run_ids"]]
    lrs = {
        r["config"]["algorithm"]["name"]: (r["config"]["client"]["lr"], r["config"]["server"]["lr"])
        for r in runs
    }
    assert lrs == {"cafed": (0.01, 0.3), "unbiased": (0.03, 0.03), "adafed": (0.001, 1.0)}
    for run, cell in zip(runs, experiment["cells"], strict=True):
        for key, value in cell["set"].items():
            section, field = key.split(".", 1)
            assert run["config"][section][field] == value


def test_a_cells_error_shows_at_its_row(page: Any, server: str) -> None:
    with_settings(page, server, {"adafed": {"client.lr": -1}})
    open_preset(page, server, PRESET)
    page.click("button:has-text('Compare cafed')")
    page.fill('[name="seeds"]', "0, 1")
    page.click("button:has-text('Launch 8 runs')")
    error = page.locator(".sweep-cell[data-label=adafed] .field-error")
    error.wait_for()
    text = error.inner_text()
    assert text.startswith("client.lr: ") and "seed" not in text
    assert text.count("\n") == 0  # the same error for both seeds, said once
    assert page.locator(".sweep-cell .field-error:visible").count() == 1


def test_presets_name_their_paper_and_the_data_files_they_need(page: Any, server: str) -> None:
    open_preset(page, server, "mifa-cifar10")
    needs = page.locator(".preset-info .needs")
    needs.wait_for()
    assert needs.inner_text().startswith("Needs cifar10: place cifar-10-batches-py/data_batch_1")
    # only what this server accepts: it downloads nothing (FEDWATCH_ALLOW_DOWNLOAD is off)
    assert "data.download" not in needs.inner_text()
    assert "data.dataset=digits runs it offline" in needs.inner_text()

    open_preset(page, server, PRESET)
    page.locator(".preset-info .paper", has_text="arodio/CA-Fed").wait_for()
    assert page.locator(".preset-info .needs").count() == 0  # generated data
