"""The README's screenshots (docs/screenshots/), taken from the current front end: a real
`fedwatch serve` (embedded, SQLite in a scratch directory) and Chromium driven as the browser
tests drive it (tests/frontend/test_pages.py, whose screenshots land in artifacts/).

1. Example 1 with FedAvg through the form, live then finished (run-live, run); with
   FedLaAvg; both ticked in the runs list (runs) and compared (compare-example1);
2. the form's validation error (new-run-error);
3. cafed-synthetic's comparison set from the form's Compare button, 60 rounds (4 methods ×
   3 seeds) compared (compare-cafed-synthetic), and its CA-Fed run (run-cafed-synthetic);
4. a 2 × 2 sweep, CA-Fed vs Unbiased × 2 seeds, 60 rounds (new-run-sweep, compare-sweep).

    python docs/screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, sync_playwright

from tests.frontend.conftest import serve
from tests.frontend.test_pages import fill_sweep, open_preset

CHROMIUM = "/usr/bin/chromium"
OUT = Path(__file__).resolve().parent / "screenshots"
POINTS = """(plot) => {
  const gd = document.querySelector(`[data-plot="${plot}"]`);
  return Math.max(0, ...(gd?.data || []).map((t) => t.x.length));
}"""


def wait_runs(url: str, ids: list[int], timeout: float = 900) -> None:
    deadline = time.monotonic() + timeout
    while True:
        runs = [httpx.get(f"{url}/api/runs/{i}", timeout=30).json() for i in ids]
        if all(r["status"] == "succeeded" for r in runs):
            return
        failed = [r for r in runs if not r["active"] and r["status"] != "succeeded"]
        assert not failed and time.monotonic() < deadline, failed
        time.sleep(1)


def start_run(page: Page, url: str, algorithm: str) -> int:
    open_preset(page, url, "example1")
    page.select_option('[name="algorithm.name"]', algorithm)
    page.click("button:has-text('Start run')")
    page.wait_for_url(re.compile(r"#/runs/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def all_plots_drawn(page: Page) -> None:
    """Every plot of the page drawn or replaced by its empty state."""
    page.wait_for_function(
        """() => [...document.querySelectorAll('.plot')].every((p) =>
             p.querySelector('.main-svg') || p.querySelector(':scope > .state-empty'))"""
    )


def shoot(page: Page, out: Path, name: str, full_page: bool = True) -> None:
    """A PNG of 256 colours where Pillow is installed (a third of the size, as the earlier
    screenshots were)."""
    page.mouse.move(0, 0)  # no hover label
    path = out / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    try:
        from PIL import Image
    except ImportError:
        pass
    else:
        with Image.open(path) as image:
            image.convert("RGB").quantize(256).save(path, optimize=True)
    print(path)


def example1(page: Page, url: str, out: Path) -> None:
    fedavg = start_run(page, url, "fedavg")
    page.wait_for_function(f"() => ({POINTS})('curve-param') > 300", timeout=120_000)
    page.wait_for_selector(".run-head .badge[data-status=running]")
    all_plots_drawn(page)
    shoot(page, out, "run-live")
    page.wait_for_selector(".run-head .badge[data-status=succeeded]", timeout=300_000)
    page.wait_for_selector(".summary tr[data-key=period_avg_param]")
    page.wait_for_function(f"() => ({POINTS})('curve-param') === 1000")
    all_plots_drawn(page)
    shoot(page, out, "run")
    fedlaavg = start_run(page, url, "fedlaavg")
    wait_runs(url, [fedlaavg])
    page.goto(f"{url}/#/runs")
    for run_id in (fedavg, fedlaavg):
        page.check(f"tr[data-run-id='{run_id}'] input[type=checkbox]")
    shoot(page, out, "runs")
    page.click("button:has-text('Compare 2 selected')")
    page.wait_for_function("() => document.querySelector('[data-plot=compare]')?.data?.length")
    page.wait_for_selector(".summary-table td[data-key=period_avg_param]")
    shoot(page, out, "compare-example1")


def validation_error(page: Page, url: str, out: Path) -> None:
    open_preset(page, url, "example1")
    page.fill('[name="algorithm.participation"]', "5")
    page.click("button:has-text('Start run')")
    page.locator('[data-path="algorithm.participation"] .field-error').wait_for()
    shoot(page, out, "new-run-error", full_page=False)


def launch(page: Page, experiment: str) -> int:
    page.fill('[name="experiment-name"]', experiment)
    page.click("button:has-text('Launch')")
    page.wait_for_url(re.compile(r"#/compare\?experiment=\d+"))
    return int(re.findall(r"experiment=(\d+)", page.url)[0])


def bands(page: Page, url: str, experiment: int, n: int) -> None:
    ids = httpx.get(f"{url}/api/experiments/{experiment}", timeout=30).json()["run_ids"]
    wait_runs(url, ids)
    page.goto(f"{url}/#/compare?experiment={experiment}")
    page.wait_for_function(
        f"""() => (document.querySelector('[data-plot=compare]')?.data || [])
              .filter((t) => t.meta && t.meta.band).length === {n}"""
    )
    page.wait_for_selector(".summary-table tbody tr")


def cafed_comparison(page: Page, url: str, out: Path) -> None:
    open_preset(page, url, "cafed-synthetic")
    page.fill('[name="rounds"]', "60")
    page.click(".toolbar button:has-text('Compare')")
    experiment = launch(page, "cafed-synthetic comparison, 60 rounds")
    bands(page, url, experiment, 4)
    shoot(page, out, "compare-cafed-synthetic")
    runs = httpx.get(f"{url}/api/runs", params={"experiment_id": experiment, "q": "cafed"})
    cafed = next(r for r in runs.json()["data"] if r["algorithm"] == "cafed")
    page.goto(f"{url}/#/runs/{cafed['id']}")
    page.wait_for_selector(".run-head .badge[data-status=succeeded]")
    page.wait_for_selector(".summary tr[data-key=time_avg_test_acc]")
    all_plots_drawn(page)
    shoot(page, out, "run-cafed-synthetic")


def sweep(page: Page, url: str, out: Path) -> None:
    fill_sweep(page, url)
    shoot(page, out, "new-run-sweep")
    experiment = launch(page, "cafed vs unbiased")
    bands(page, url, experiment, 2)
    shoot(page, out, "compare-sweep")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as scratch,
        serve(Path(scratch)) as url,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page: Any = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(120_000)
        example1(page, url, args.out)
        validation_error(page, url, args.out)
        cafed_comparison(page, url, args.out)
        sweep(page, url, args.out)
        browser.close()


if __name__ == "__main__":
    main()
