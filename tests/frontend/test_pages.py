"""The dashboard in Chromium against a real `fedwatch serve`: forms, live curves, compare,
sweeps, cancel/delete, resume, validation errors and a narrow window. Screenshots of each page go
to artifacts/screenshots/."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.helpers import example1, submit, wait_final
from tests.eventually import eventually
from tests.frontend.conftest import HTML_NAME, screenshot, serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]

POINTS = """([plot, metric]) => {
  const gd = document.querySelector(`[data-plot="${plot}"]`);
  const t = (gd && gd.data || []).find((t) => t.meta && t.meta.metric === metric
    && t.meta.field === 'last');
  return t ? t.x.length : 0;
}"""
STATUS = "document.querySelector('.run-head .badge').dataset.status"
SEEN_STATUSES = """() => {
  window.seenStatuses = [];
  new MutationObserver(() => {
    const status = document.querySelector('.run-head .badge')?.dataset.status;
    if (status && status !== window.seenStatuses.at(-1)) window.seenStatuses.push(status);
  }).observe(document.querySelector('.run-head'), {childList: true, subtree: true});
}"""
X_RANGE = "() => document.querySelector('[data-plot=curve-param]').layout.xaxis.range"


def open_preset(page: Any, server: str, preset: str) -> None:
    page.goto(f"{server}/#/new?preset={preset}")
    page.wait_for_selector(".preset-info p")  # shown once the preset filled the form


def submit_run(page: Any, server: str, algorithm: str, rounds: int) -> int:
    open_preset(page, server, "example1")
    page.select_option('[name="algorithm.name"]', algorithm)
    page.fill('[name="rounds"]', str(rounds))
    page.click("button:has-text('Start run')")
    page.wait_for_url(re.compile(r"#/runs/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def wait_status(
    server: str,
    run_id: int,
    statuses: set[str],
    timeout: float = 90,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    def reached() -> dict[str, Any] | None:
        run: dict[str, Any] = httpx.get(f"{server}/api/runs/{run_id}", headers=headers).json()
        return run if run["status"] in statuses else None

    return eventually(reached, f"run {run_id} reaching {statuses}", timeout, every=0.3)


def test_example1_through_the_form_live_then_compared(page: Any, server: str) -> None:
    fedavg = submit_run(page, server, "fedavg", 4000)
    # Live: the curve of x gains points while the run is still running, without a reload.
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) > 0", timeout=30_000)
    first, status = page.evaluate(f"() => [({POINTS})(['curve-param', 'param']), {STATUS}]")
    assert status == "running"
    page.wait_for_function(
        f"() => ({POINTS})(['curve-param', 'param']) > {first} && {STATUS} === 'running'",
        timeout=30_000,
    )
    screenshot(page, "run-live")
    # Zoom like a user (drag across the plot); live appends and the final redraw keep it.
    drag = page.locator("[data-plot=curve-param] .nsewdrag").bounding_box()
    y = drag["y"] + drag["height"] / 2
    page.mouse.move(drag["x"] + drag["width"] * 0.2, y)
    page.mouse.down()
    page.mouse.move(drag["x"] + drag["width"] * 0.6, y, steps=8)
    page.mouse.up()
    zoomed = page.evaluate(X_RANGE)
    assert page.evaluate(X_RANGE.replace(".range", ".autorange")) is False
    page.wait_for_selector(".run-head .badge[data-status=succeeded]", timeout=60_000)
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) > 100")
    assert page.evaluate(X_RANGE) == zoomed
    page.dblclick("[data-plot=curve-param] .nsewdrag")  # back to the full range
    page.wait_for_selector("[data-plot=availability] .main-svg")
    page.wait_for_selector(".summary table")
    screenshot(page, "run")

    fedlaavg = submit_run(page, server, "fedlaavg", 4000)
    wait_status(server, fedlaavg, {"succeeded"})

    page.goto(f"{server}/#/runs")
    for run_id in (fedavg, fedlaavg):
        page.check(f"tr[data-run-id='{run_id}'] input[type=checkbox]")
    screenshot(page, "runs")
    page.click("button:has-text('Compare 2 selected')")
    page.wait_for_url(re.compile(r"#/compare\?runs="))
    page.wait_for_selector(".summary-table td[data-key=final_param]")
    final = {
        row.get_attribute("data-group"): float(
            row.query_selector("td[data-key=final_param]").inner_text()
        )
        for row in page.query_selector_all(".summary-table tbody tr")
    }
    # FedAvg is biased towards (30·1 + 10·(−1)) / 40 = 0.5; FedLaAvg reaches the optimum 0.
    assert set(final) == {"fedavg", "fedlaavg"}
    assert abs(final["fedlaavg"]) < 1e-3
    assert final["fedavg"] > 0.2
    # Plotly draws the chart once its script has run, maybe after the table shows.
    page.wait_for_function("() => document.querySelector('[data-plot=compare]').data?.length >= 2")
    screenshot(page, "compare-example1")


def test_run_curves_against_wall_time(page: Any, server: str) -> None:
    run_id = submit_run(page, server, "fedavg", 300)
    # Named after the preset, the algorithm and what differs from the preset.
    assert page.inner_text(".run-title") == "example1 · fedavg · rounds=300"
    wait_status(server, run_id, {"succeeded"})
    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_selector(".run-head .badge[data-status=succeeded]")
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) === 300")
    page.select_option("select[name=x]", "wall_s")
    title = "() => document.querySelector('[data-plot=curve-param]').layout.xaxis.title.text"
    page.wait_for_function(f"() => ({title})() === 'wall time (s)'")
    xs = page.evaluate(
        """() => document.querySelector('[data-plot=curve-param]').data
             .find((t) => t.meta.field === 'last').x"""
    )
    rounds = httpx.get(f"{server}/api/runs/{run_id}/rounds", params={"limit": 1000}).json()
    walls = [r["wall_s"] for r in rounds["data"]]
    assert len(xs) == 300 and xs == pytest.approx(walls)  # every round: its own wall time
    page.select_option("select[name=x]", "round")
    page.wait_for_function(f"() => ({title})() === 'round'")


def test_staleness_distribution_counts_every_cell_exactly(page: Any, server: str) -> None:
    # FedAvg on example1, 120 rounds: client 0 is stale 1..10 three times, client 1
    # stale 1..30 three times, each 0 otherwise (tests/api/test_series.py counts it).
    with httpx.Client(base_url=server) as api:
        run_id = submit(api, example1(120, algorithm__name="fedavg"))["id"]
        assert wait_final(api, run_id)["status"] == "succeeded"
    page.goto(f"{server}/#/runs/{run_id}")
    bars = "() => document.querySelector('[data-plot=staleness-hist]')?.data?.[0]?.y"
    page.wait_for_function(f"() => ({bars})()?.length > 0")
    assert page.evaluate(bars) == [120] + [6] * 10 + [3] * 20
    title = page.evaluate(
        "() => document.querySelector('[data-plot=staleness-hist]').layout.title.text"
    )
    assert "all 240 client × round cells" in title and "max 30" in title


def test_live_curves_stay_on_wall_time_after_resampling(page: Any, server: str) -> None:
    config = example1(100_000, algorithm__name="fedavg")
    started = time.monotonic()
    run_id = httpx.post(f"{server}/api/runs", json={"config": config}).json()["id"]
    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) > 0", timeout=30_000)
    page.select_option("select[name=x]", "wall_s")
    # Past 4000 streamed points the page fetches the downsampled series again, redraws,
    # and goes on appending.
    with page.expect_response(lambda r: f"/api/runs/{run_id}/metrics" in r.url, timeout=180_000):
        pass
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) <= 1000")
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) > 1050", timeout=30_000)
    xs = page.evaluate(
        """() => document.querySelector('[data-plot=curve-param]').data
             .find((t) => t.meta.field === 'last').x"""
    )
    httpx.post(f"{server}/api/runs/{run_id}/cancel")
    assert page.input_value("select[name=x]") == "wall_s"
    assert max(xs) <= time.monotonic() - started  # seconds of wall time, not round numbers
    wait_status(server, run_id, {"cancelled"})


def fill_sweep(page: Any, server: str) -> None:
    """The form set for a 2 × 2 sweep of cafed-synthetic, 60 rounds: CA-Fed and
    Unbiased × seeds 0 and 1, as the experiment "cafed vs unbiased" (also the README's
    screenshot, `docs/screenshots.py`)."""
    open_preset(page, server, "cafed-synthetic")
    page.fill('[name="rounds"]', "60")
    page.click("button.tab:has-text('Sweep')")
    page.click("button:has-text('sweep another field')")
    row = page.locator(".sweep-row").last
    for algorithm in ("cafed", "unbiased"):
        row.locator(f"label.check:has-text('{algorithm}') input").first.check()
    page.fill('[name="seeds"]', "0, 1")
    page.fill('[name="experiment-name"]', "cafed vs unbiased")


def test_sweep_of_two_algorithms_and_two_seeds_shows_two_bands(page: Any, server: str) -> None:
    fill_sweep(page, server)
    screenshot(page, "new-run-sweep")
    page.click("button:has-text('Launch 4 runs')")
    page.wait_for_url(re.compile(r"#/compare\?experiment=\d+"))
    page.wait_for_function(
        "() => document.querySelectorAll('.runs-table .badge[data-status=succeeded]').length === 4",
        timeout=120_000,
    )
    bands = """() => (document.querySelector('[data-plot=compare]')?.data || [])
        .filter((t) => t.meta && t.meta.band).length"""
    page.wait_for_function(f"() => ({bands})() === 2")
    # Groups are named as a paper names them (the swept algorithm's display name, never a
    # dotted key); their runs' own lines start hidden.
    names = """() => document.querySelector('[data-plot=compare]').data
        .filter((t) => t.meta && t.meta.group).map((t) => t.name)"""
    assert sorted(page.evaluate(names)) == ["CA-Fed (n=2)", "Unbiased (n=2)"]
    run_lines = """() => document.querySelector('[data-plot=compare]').data
        .filter((t) => t.meta && t.meta.run).length"""
    assert page.evaluate(run_lines) == 0 and not page.is_checked("input[name=lines]")
    page.check("input[name=lines]")
    page.wait_for_function(f"() => ({run_lines})() === 4")
    assert "lines=1" in page.url
    page.uncheck("input[name=lines]")
    page.wait_for_function(f"() => ({run_lines})() === 0")
    assert page.locator(".summary-table tbody tr").count() == 2
    # Two seeds pair: no test, and the table says why.
    assert page.locator(".summary-table td[data-key=time_avg_test_acc] .ttest").count() == 0
    assert "2 pairs by seed: a paired t-test needs at least 3" in page.inner_text(
        ".summary-table tbody"
    )
    screenshot(page, "compare-sweep")

    # The view state is in the URL: change it, reload, and it is still there.
    page.select_option("select[name=x]", "wall_s")
    page.fill("input[name=smooth]", "0.6")
    page.dispatch_event("input[name=smooth]", "input")
    # The address says the axis by its word (GET /api/meta), the API gets its key.
    assert re.search(r"[?&]x=wall(&|$)", page.url) and "smooth=0.60" in page.url
    page.reload()
    page.wait_for_function(f"() => ({bands})() === 2")
    assert page.input_value("select[name=x]") == "wall_s"
    assert page.input_value("input[name=smooth]") == "0.6"


def test_api_errors_show_next_to_the_field(page: Any, server: str) -> None:
    open_preset(page, server, "example1")
    page.fill('[name="algorithm.participation"]', "5")
    page.click("button:has-text('Start run')")
    error = page.locator('[data-path="algorithm.participation"] .field-error')
    error.wait_for()
    assert "n_clients" in error.inner_text()
    # Still the form, its edit in the address.
    assert page.evaluate("() => location.hash").startswith("#/new?preset=example1&set=")
    screenshot(page, "new-run-error", full_page=False)


def test_cancel_and_delete_with_confirmation_names_as_text(page: Any, server: str) -> None:
    name = '<img src=x onerror="window.pwned=1"> & co'
    body = {"config": {"name": name, "rounds": 1_000_000}, "notes": "<b>not bold</b>"}
    run_id = httpx.post(f"{server}/api/runs", json=body).json()["id"]
    page.goto(f"{server}/#/runs")
    row = page.locator(f"tr[data-run-id='{run_id}']")
    assert row.locator(".run-name").inner_text() == name
    assert row.locator(".name-cell .muted").inner_text() == "<b>not bold</b>"
    page.on("dialog", lambda d: pytest.fail(f"a browser dialog: {d.message}"))
    row.locator("button:has-text('Cancel')").click()
    box = page.locator(".confirm-slot .confirm-box")
    assert box.locator("p").inner_text() == f'Cancel run #{run_id} "{name}"?'
    box.locator("button:has-text('Cancel run')").click()
    row.locator(".badge[data-status=cancelled]").wait_for(timeout=30_000)
    assert page.locator(".confirm-slot").is_hidden()
    row.locator("button:has-text('Delete')").click()
    box.locator("button:has-text('Keep')").click()  # nothing deleted
    assert page.locator(".confirm-slot").is_hidden()
    assert httpx.get(f"{server}/api/runs/{run_id}").status_code == 200
    row.locator("button:has-text('Delete')").click()
    assert "This cannot be undone." in box.inner_text()
    box.locator("button:has-text('Delete run')").click()
    row.wait_for(state="detached")
    assert httpx.get(f"{server}/api/runs/{run_id}").status_code == 404
    assert page.evaluate("() => window.pwned") is None
    page.fill("input[name=q]", "no run is called this")
    page.wait_for_selector("text=No run matches these filters.")


def test_cancelled_run_resumes_from_its_page(page: Any, server: str) -> None:
    config = example1(4000, algorithm__name="fedavg", eval__checkpoint_every=50)
    run_id = httpx.post(f"{server}/api/runs", json={"config": config}).json()["id"]
    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) >= 200", timeout=30_000)
    page.evaluate(SEEN_STATUSES)
    page.click(".run-head button:has-text('Cancel')")
    page.click(".confirm-slot button:has-text('Cancel run')")
    page.wait_for_function(f"() => {STATUS} === 'cancelled'", timeout=30_000)
    # From the cancel's answer on, the page says the run is stopping, never running.
    seen = page.evaluate("() => window.seenStatuses")
    assert "cancelling" in seen
    assert seen[seen.index("cancelling") :] == ["cancelling", "cancelled"]
    cancelled = wait_status(server, run_id, {"cancelled"})
    assert cancelled["rounds_done"] < 4000
    page.click(".run-head button:has-text('Resume')")
    page.wait_for_function(f"() => {STATUS} === 'succeeded'", timeout=90_000)
    assert page.locator(".run-head button:has-text('Resume')").count() == 0
    done = wait_status(server, run_id, {"succeeded"})
    assert (done["rounds_done"], done["error"]) == (4000, None)
    # From the store, once the page has fetched it again after the status event.
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) === 1000")
    screenshot(page, "run-resumed")


def test_runs_table_ranks_by_best_accuracy(page: Any, server: str) -> None:
    base = {
        "rounds": 4,
        "device": "cpu",
        "data": {"n_clients": 6},
        "algorithm": {"participation": 3},
    }
    body = {"name": "ranked", "base": base, "grid": {"client.lr": [0.001, 0.3]}, "seeds": [0, 1]}
    experiment = httpx.post(f"{server}/api/experiments", json=body).json()
    runs = [wait_status(server, i, {"succeeded"}) for i in experiment["run_ids"]]
    acc = {r["id"]: r["summary"]["best_test_acc"] for r in runs}
    page.goto(f"{server}/#/runs?experiment={experiment['id']}")
    page.select_option("select[name=rank]", "best_test_acc")
    expected = sorted(acc, key=lambda i: (-acc[i], -i))
    ids = "() => [...document.querySelectorAll('tr[data-run-id]')].map((r) => +r.dataset.runId)"
    page.wait_for_function(f"() => ({ids})().join() === '{','.join(map(str, expected))}'")
    assert "rank=best_test_acc" in page.url
    shown = f"best acc {float(f'{acc[expected[0]]:.3g}'):g}"  # as format.js `num(x, 3)`
    assert shown in page.locator(f"tr[data-run-id='{expected[0]}']").inner_text()
    screenshot(page, "runs-ranked")


def test_markup_in_names_shows_as_text_in_plots(page: Any, server: str) -> None:
    base = {
        "rounds": 4,
        "device": "cpu",
        "data": {"n_clients": 6},
        "algorithm": {"participation": 3},
    }
    body = {"name": "markup", "base": base, "grid": {"name": [HTML_NAME, "plain"]}, "seeds": [0]}
    experiment = httpx.post(f"{server}/api/experiments", json=body).json()
    runs = [wait_status(server, i, {"succeeded"}) for i in experiment["run_ids"]]
    page.goto(f"{server}/#/compare?experiment={experiment['id']}")
    legend = """() => [...document.querySelectorAll('[data-plot=compare] .legendtext')]
        .map((e) => e.textContent)"""
    page.wait_for_function(f"() => ({legend})().length === 2")
    expected = [f"name = {HTML_NAME} (n=1)", "name = plain (n=1)"]  # the swept field named
    assert sorted(page.evaluate(legend)) == sorted(expected)
    assert page.locator("main svg a").count() == 0
    assert HTML_NAME in page.inner_text(".summary-table")
    run = next(r for r in runs if HTML_NAME in r["name"])  # "markup [name=<a …>] seed=0"
    page.goto(f"{server}/#/runs/{run['id']}")
    page.wait_for_selector("[data-plot=curve-accuracy] .legendtext")
    assert page.inner_text(".run-title") == run["name"]
    assert page.locator("main svg a").count() == 0


def test_csv_export_carries_the_token_when_reads_are_protected(
    browser: Any, tmp_path: Path
) -> None:
    token = {"Authorization": "Bearer s3cret"}
    env = {"FEDWATCH_API_TOKEN": "s3cret", "FEDWATCH_PROTECT_READS": "1"}
    with serve(tmp_path, **env) as url:
        created = httpx.post(f"{url}/api/runs", json={"config": example1(30)}, headers=token)
        run_id = created.json()["id"]
        wait_status(url, run_id, {"succeeded"}, headers=token)
        expected = httpx.get(f"{url}/api/runs/{run_id}/export.csv", headers=token)
        context = browser.new_context(accept_downloads=True)
        page = context.new_page()
        page.goto(f"{url}/#/runs/{run_id}")
        box = page.locator(".token-box")
        box.wait_for()  # the run itself is a protected read: 401
        box.locator("input").fill("s3cret")
        box.locator("button").click()
        page.wait_for_selector(".run-head .badge[data-status=succeeded]")
        with page.expect_download() as info:
            page.click(".run-head :text('Export CSV')")
        download = info.value
        assert download.failure() is None
        rows = Path(download.path()).read_text().splitlines()
        assert rows == expected.text.splitlines()
        assert rows[0].startswith("round,") and len(rows) == 1 + 30
        assert (
            f'filename="{download.suggested_filename}"' in expected.headers["content-disposition"]
        )
        context.close()


def test_narrow_window_has_no_horizontal_scroll(page: Any, server: str) -> None:
    body = {"config": {"name": "narrow", "rounds": 30}, "notes": ""}
    run_id = httpx.post(f"{server}/api/runs", json=body).json()["id"]
    wait_status(server, run_id, {"succeeded"})
    page.set_viewport_size({"width": 400, "height": 860})
    for route in (f"#/runs/{run_id}", "#/runs", "#/new", f"#/compare?runs={run_id}"):
        page.goto(f"{server}/{route}")
        page.wait_for_selector("main .page > *")
        page.wait_for_timeout(600)
        overflow = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
        assert overflow <= 1, f"{route} scrolls sideways by {overflow}px"
    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_selector("[data-plot=curve-accuracy] .main-svg")
    screenshot(page, "run-narrow")


def test_unknown_run_says_it_does_not_exist(page: Any, server: str, page_errors: list[str]) -> None:
    page.goto(f"{server}/#/runs/987654")
    box = page.locator(".state-missing")
    box.wait_for()
    assert "Run #987654 does not exist" in box.inner_text()
    assert page.locator(".state-error").count() == 0  # not "something went wrong"
    assert box.locator("button:has-text('Retry')").count() == 0  # retrying cannot help
    box.locator("a:has-text('Back to the runs')").click()
    page.wait_for_url(re.compile(r"#/runs$"))
    page_errors[:] = [e for e in page_errors if not e.startswith("404 GET") or "987654" not in e]


def test_token_protected_server_asks_for_the_token(browser: Any, tmp_path: Path) -> None:
    with serve(tmp_path, FEDWATCH_API_TOKEN="s3cret") as url:
        page = browser.new_page()
        page.goto(f"{url}/#/new?preset=example1")
        page.wait_for_selector(".preset-info p")
        page.fill('[name="rounds"]', "50")
        page.click("button:has-text('Start run')")
        box = page.locator(".form-errors .token-box")
        box.wait_for()  # the write was refused: 401
        assert httpx.get(f"{url}/api/runs").json()["count"] == 0
        box.locator("input").fill("s3cret")
        box.locator("button").click()
        page.wait_for_url(re.compile(r"#/runs/\d+$"))
        page.wait_for_selector(".run-head .badge[data-status=succeeded]", timeout=60_000)
        page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) === 50")
        page.close()


def test_edit_a_run_then_filter_the_runs_by_its_tag(page: Any, server: str) -> None:
    runs = [
        httpx.post(f"{server}/api/runs", json={"config": example1(5)}).json()["id"]
        for _ in range(2)
    ]
    page.goto(f"{server}/#/runs/{runs[0]}")
    page.click(".run-head button:has-text('Edit')")
    page.fill("[name=edit-name]", "renamed <b>run</b>")
    page.fill("[name=edit-tags]", "bad tag")
    page.click(".edit-run button:has-text('Save')")
    page.wait_for_selector(".edit-run .field-error:has-text('tags')")  # refused, form kept
    page.fill("[name=edit-tags]", "paper, fig-2")
    page.fill("[name=edit-notes]", "the one in the paper")
    page.click(".edit-run button:has-text('Save')")
    page.locator(".edit-run").wait_for(state="detached")
    assert page.inner_text(".run-title") == "renamed <b>run</b>"
    assert page.locator(".run-head .tags .tag").all_inner_texts() == ["fig-2", "paper"]
    assert page.inner_text(".run-head .notes") == "the one in the paper"
    stored = httpx.get(f"{server}/api/runs/{runs[0]}").json()
    assert (stored["name"], stored["tags"]) == ("renamed <b>run</b>", ["fig-2", "paper"])

    page.click(".run-head .tags a:has-text('paper')")  # to the runs tagged paper
    page.wait_for_url(re.compile(r"#/runs\?tag=paper$"))
    rows = page.locator("tr[data-run-id]")
    page.wait_for_function("() => document.querySelectorAll('tr[data-run-id]').length === 1")
    assert rows.first.get_attribute("data-run-id") == str(runs[0])
    page.click(".tag-filter .tag")  # drop the filter
    page.wait_for_function(
        f"() => document.querySelector('tr[data-run-id=\"{runs[1]}\"]') !== null"
    )
    page.locator(f"tr[data-run-id='{runs[0]}'] .tags .tag:has-text('fig-2')").click()
    page.wait_for_url(re.compile(r"tag=fig-2"))
    page.wait_for_function("() => document.querySelectorAll('tr[data-run-id]').length === 1")


def test_a_run_read_before_an_edit_does_not_undo_it(page: Any, server: str) -> None:
    """The page's last read of a run that ends (its summary, once the stream says so) is
    answered after the name was saved, with what the server held before: the saved name
    stays."""
    config = example1(4000, algorithm__name="fedavg")
    run_id = httpx.post(f"{server}/api/runs", json={"config": config}).json()["id"]
    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_function(f"() => ({POINTS})(['curve-param', 'param']) >= 50", timeout=30_000)
    held: list[tuple[Any, Any]] = []  # the run as read then, answered later

    def read_now_answer_later(route: Any) -> None:
        if route.request.method != "GET":
            route.continue_()
            return
        held.append((route, route.fetch()))

    page.route(re.compile(rf"/api/runs/{run_id}$"), read_now_answer_later)
    httpx.post(f"{server}/api/runs/{run_id}/cancel")
    # the run ended: the page reads it (its handler runs while the page waits)
    eventually(
        lambda: held,
        "the page reading the run when it ended",
        pause=lambda s: page.wait_for_timeout(s * 1000),
    )
    page.click(".run-head button:has-text('Edit')")
    page.fill("[name=edit-name]", "renamed while it ended")
    page.click(".edit-run button:has-text('Save')")
    page.locator(".edit-run").wait_for(state="detached")
    assert httpx.get(f"{server}/api/runs/{run_id}").json()["name"] == "renamed while it ended"
    for route, response in held:
        route.fulfill(response=response)
    page.wait_for_function(f"() => {STATUS} === 'cancelled'", timeout=30_000)
    page.wait_for_load_state("networkidle")
    assert page.inner_text(".run-title") == "renamed while it ended"


def test_a_filter_from_the_url_survives_a_change_before_its_list_loads(
    page: Any, server: str
) -> None:
    base = {
        "rounds": 3,
        "device": "cpu",
        "data": {"n_clients": 4},
        "algorithm": {"participation": 2},
    }
    body = {"name": "kept", "base": base, "grid": {"client.lr": [0.01, 0.1]}, "seeds": [0]}
    experiment = httpx.post(f"{server}/api/experiments", json=body).json()
    for run_id in experiment["run_ids"]:
        wait_status(server, run_id, {"succeeded"})
    held: list[Any] = []  # the experiments list is answered only at the end
    page.route(re.compile(r"/api/experiments(\?.*)?$"), lambda route: held.append(route))
    page.goto(f"{server}/#/runs?experiment={experiment['id']}")
    rows = "() => [...document.querySelectorAll('tr[data-run-id]')].map((r) => +r.dataset.runId)"
    expected = ",".join(map(str, sorted(experiment["run_ids"], reverse=True)))
    page.wait_for_function(f"() => ({rows})().join() === '{expected}'")
    page.select_option("select[name=status]", "succeeded")
    page.wait_for_function("() => location.hash.includes('status=succeeded')")
    assert f"experiment={experiment['id']}" in page.url
    assert page.evaluate(f"() => ({rows})().join()") == expected
    assert held, "the experiments list was not held back"
    for route in held:
        route.continue_()
