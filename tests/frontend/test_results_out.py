"""Results out of the dashboard: the compare page's corrected verdicts and CIs, its CI
band, and its LaTeX table and PDF figure downloaded as files; the run page's bundle and
model."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import Any

import httpx
import pytest
from pypdf import PdfReader

from tests.api.helpers import example1, wait_final
from tests.frontend.conftest import watched_page

pytestmark = pytest.mark.browser

BANDS = """() => (document.querySelector('[data-plot=compare]')?.data || [])
    .filter((t) => t.meta && t.meta.band).map((t) => t.name)"""


def download(page: Any, selector: str) -> tuple[str, bytes]:
    with page.expect_download() as info:
        page.click(selector)
    got = info.value
    assert got.failure() is None
    return got.suggested_filename, Path(got.path()).read_bytes()


def test_compare_page_downloads_the_latex_table_and_the_pdf_figure(
    browser: Any, server: str, page_errors: list[str]
) -> None:
    ids = []
    for algorithm in ("fedlaavg", "fedavg"):
        for seed in (0, 1, 2):
            body = {"config": example1(60, algorithm__name=algorithm, seed=seed)}
            ids.append(httpx.post(f"{server}/api/runs", json=body).json()["id"])
    with httpx.Client(base_url=server, timeout=30) as client:
        for run_id in ids:
            assert wait_final(client, run_id)["status"] == "succeeded"

    with watched_page(browser, server, page_errors) as page:
        page.goto(f"{server}/#/compare?runs={','.join(map(str, ids))}&reference=fedlaavg")
        page.wait_for_selector(".summary-table td[data-key=final_param]")
        # Example 1 is deterministic: its seeds give identical runs, so no test runs (a
        # paired t-test on constant differences said "better · Holm p < 0.001" before)
        notes = page.locator(".summary-table .ttest").all_inner_texts()
        assert notes and all(re.fullmatch(r"no test · Δ [+−-][0-9.]+ \(constant\)", n)
                             for n in notes)  # fmt: skip
        caption = page.inner_text("p.caption")
        assert "FedAvg and FedLaAvg are identical across their 3 seeds (deterministic)" in caption
        assert "seeds 0, 1, 2" in caption and "Holm" not in caption
        assert page.inner_text(".summary-table th[data-key=ttest]").lower() == "test"
        assert "identical across seeds" in page.inner_text(".summary-table tbody")

        page.select_option("select[name=band]", "ci")
        page.wait_for_function(f"() => ({BANDS})().some((n) => n.endsWith('CI'))")
        assert "band=ci" in page.url
        # No test ran, so the caption does not change with α: the table's answer for
        # α = 0.01 is what says the page has reloaded
        with page.expect_response(lambda r: "alpha=0.01" in r.url and "format=" not in r.url):
            page.fill("input[name=alpha]", "0.01")
            page.dispatch_event("input[name=alpha]", "change")
        page.wait_for_function("() => location.href.includes('alpha=0.01')")
        page.wait_for_function("() => document.querySelector('[data-plot=compare]')?.data?.length")

        name, tex = download(page, "[data-files=table] button[data-format=tex]")
        text = tex.decode()
        assert name == "comparison.tex"
        assert text.startswith("\\begin{table}") and "\\toprule" in text
        rows = text.split("\\midrule\n")[1].split("\\bottomrule")[0].strip().splitlines()
        assert [row.split(" & ")[0] for row in rows] == ["FedLaAvg (reference)", "FedAvg"]
        assert "identical across their 3 seeds (deterministic): no test" in text

        name, pdf = download(page, "[data-files=figure] button[data-format=pdf]")
        assert name == "comparison-param.pdf" and pdf.startswith(b"%PDF")
        layer = " ".join(PdfReader(io.BytesIO(pdf)).pages[0].extract_text().split())
        # Example 1 is deterministic: its seeds' runs are identical, with no band to draw
        caption = "mean of n = 3 runs per group; identical runs, no band: FedLaAvg, FedAvg"
        for label in ("parameter x", "round", "FedLaAvg", "FedAvg", caption):
            assert label in layer, label

        page.reload()  # the band and α are in the URL
        page.wait_for_function(f"() => ({BANDS})().some((n) => n.endsWith('CI'))")
        assert page.input_value("input[name=alpha]") == "0.01"

        # x is unbounded; the gap (x − x*)² is ≥ 0, and the plot's title says its band is
        # kept there
        title = "() => document.querySelector('[data-plot=compare]')?.layout?.title.text ?? ''"
        assert "clipped" not in page.evaluate(title)
        page.select_option("select[name=metric]", "opt_gap")
        page.wait_for_function(f"() => ({title})().endsWith('CI per group, band clipped to ≥ 0')")


def test_run_page_downloads_its_bundle_and_model(
    browser: Any, server: str, page_errors: list[str]
) -> None:
    body = {"config": example1(30)}
    run_id = httpx.post(f"{server}/api/runs", json=body).json()["id"]
    with httpx.Client(base_url=server, timeout=30) as client:
        assert wait_final(client, run_id)["status"] == "succeeded"

    with watched_page(browser, server, page_errors) as page:
        page.goto(f"{server}/#/runs/{run_id}")
        page.wait_for_selector(".run-head .badge[data-status=succeeded]")

        name, bundle = download(page, ".run-head button[data-format=zip]")
        files = zipfile.ZipFile(io.BytesIO(bundle)).namelist()
        name_model, model = download(page, ".run-head button[data-format=safetensors]")
        _, figure = download(page, ".run-head button[data-format=pdf]")

    assert name == f"run-{run_id}.zip" and "config.json" in files and "clients.csv" in files
    assert name_model == f"run-{run_id}.safetensors" and len(model) > 8
    assert "parameter x" in PdfReader(io.BytesIO(figure)).pages[0].extract_text()
