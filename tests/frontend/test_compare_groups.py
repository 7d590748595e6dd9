"""The compare page reads its groups, their names, the reference and the warnings from
the server's one grouping, as REST and the SDK do: for README steps 2 and 3's runs (a
FedAvg run, then FedAvg and FedLaAvg over seeds 0, 1, 2 from example1) all three name
FedLaAvg the reference and drop the older run of seed 0; a group renamed on the page
keeps its name in the URL, the chart and the files. In Chromium against a real
`fedwatch serve`."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import httpx
import pytest
from pypdf import PdfReader

from fedwatch.client import FedWatch
from fedwatch.read import ComparisonWarning
from tests.frontend.conftest import watched_page
from tests.frontend.test_results_out import download

pytestmark = pytest.mark.browser

ROWS = """() => [...document.querySelectorAll('.summary-table tbody tr')].map((tr) =>
  [tr.dataset.group, tr.querySelector('th .label')?.textContent])"""
LEGEND = """() => (document.querySelector('[data-plot=compare]')?.data || [])
  .filter((t) => t.meta && t.meta.group).map((t) => t.name)"""


def external_run(client: httpx.Client, algorithm: str, seed: int) -> int:
    config = {"name": "example1", "algorithm": algorithm, "seed": seed}
    body = {"source": "external", "name": f"example1 {algorithm} seed={seed}",
            "config": config, "n_clients": 2}  # fmt: skip
    run_id = int(client.post("/api/runs", json=body).json()["id"])
    rounds = [{"round": t, "metrics": {"test_acc": 0.5 + 0.1 * seed + 0.02 * t},
               "available": [0, 1], "selected": [0, 1]} for t in range(5)]  # fmt: skip
    assert client.post(f"/api/runs/{run_id}/rounds", json={"rounds": rounds}).is_success
    assert client.post(f"/api/runs/{run_id}/finish", json={"status": "succeeded"}).is_success
    return run_id


def test_page_rest_and_sdk_agree_on_the_groups_and_a_rename_reaches_every_file(
    browser: Any, server: str, page_errors: list[str], tmp_path: Path
) -> None:
    with httpx.Client(base_url=server, timeout=30) as client:
        ids = [external_run(client, "fedavg", 0)]
        ids += [external_run(client, a, s) for a in ("fedavg", "fedlaavg") for s in (0, 1, 2)]
        rest = client.get("/api/compare", params={"runs": ",".join(map(str, ids[::-1]))}).json()
    with pytest.warns(ComparisonWarning, match="seed 0 ran 2 times"):
        sdk = FedWatch(server, spool_dir=tmp_path / "spool").compare(ids[::-1])
    dropped = f"FedAvg: seed 0 ran 2 times: kept the newest run, #{ids[1]}; dropped #{ids[0]}."

    with watched_page(browser, server, page_errors) as page:
        page.goto(f"{server}/#/compare?runs={','.join(map(str, ids))}")
        page.wait_for_function(f"() => ({ROWS})().length === 2")

        assert page.evaluate(ROWS) == [["fedavg", "FedAvg"], ["fedlaavg", "FedLaAvg"]]
        reference = page.eval_on_selector(
            "select[name=reference]", "(s) => [s.value, s.selectedOptions[0].textContent]"
        )
        assert reference == ["fedlaavg", "FedLaAvg"]
        assert (rest["reference"], rest["reference_label"]) == ("fedlaavg", "FedLaAvg")
        assert (sdk.attrs["reference"], list(sdk.index)) == ("FedLaAvg", ["FedAvg", "FedLaAvg"])
        assert page.inner_text(".compare-warnings .warning") == dropped
        assert [w["message"] for w in rest["warnings"]] == sdk.attrs["warnings"] == [dropped]
        assert "Reference: FedLaAvg (the preset's proposed method)." in page.inner_text("p.caption")
        page.wait_for_function(f"() => ({LEGEND})().length === 2")
        assert page.evaluate(LEGEND) == ["FedAvg (n=3)", "FedLaAvg (n=3)"]

        page.click("tr[data-group=fedavg] button.rename")
        page.fill("tr[data-group=fedavg] input[name=label]", "FedAvg (ours), tuned")
        page.press("tr[data-group=fedavg] input[name=label]", "Enter")
        page.wait_for_function(f"() => ({ROWS})()[0]?.[1] === 'FedAvg (ours), tuned'")
        assert "labels=fedavg" in page.url
        page.wait_for_function(
            f"() => ({LEGEND})().some((n) => n.startsWith('FedAvg (ours), tuned'))"
        )
        assert "FedAvg (ours), tuned" in page.inner_text(".compare-warnings .warning")
        _, table = download(page, "[data-files=table] button[data-format=csv]")
        groups = [r["group"] for r in csv.DictReader(io.StringIO(table.decode()))]
        assert groups == ["FedAvg (ours), tuned", "FedLaAvg"]
        _, tex = download(page, "[data-files=table] button[data-format=tex]")
        assert "FedAvg (ours), tuned &" in tex.decode()
        _, pdf = download(page, "[data-files=figure] button[data-format=pdf]")
        legend = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
        assert "FedAvg (ours), tuned" in legend and "algorithm" not in legend

        page.reload()  # the name is in the URL
        page.wait_for_function(f"() => ({ROWS})()[0]?.[1] === 'FedAvg (ours), tuned'")
        page.click("tr[data-group=fedavg] button.rename")  # an empty name: its own back
        page.fill("tr[data-group=fedavg] input[name=label]", "")
        page.press("tr[data-group=fedavg] input[name=label]", "Enter")
        page.wait_for_function(f"() => ({ROWS})()[0]?.[1] === 'FedAvg'")
        assert "labels=" not in page.url
