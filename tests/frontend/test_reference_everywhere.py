"""One comparison, four readers: `fedwatch compare example1 --server` runs the preset's
methods (FedAvg, FedLaAvg, MIFA; the sweep's first method is FedAvg) over 3 seeds,
records each run into a real `fedwatch serve` and tabulates them itself; the compare page
in Chromium, `GET /api/compare` and the SDK's `fw.compare` group the same runs on the
server. All four name the same groups and the same reference, FedLaAvg, the preset's
proposed method (not the sweep's first), and a rename of it (`--label`, `labels=`,
`labels={…}`, the page's ✎) names it the reference in each of them and in their LaTeX."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from fedwatch.client import FedWatch
from fedwatch.command import main
from tests.eventually import eventually
from tests.frontend.conftest import watched_page
from tests.frontend.test_compare_groups import ROWS
from tests.frontend.test_results_out import download

pytestmark = [pytest.mark.browser, pytest.mark.slow]

OURS = "FedLaAvg (ours)"
SAID = "Reference: FedLaAvg (the preset's proposed method)."
RENAMED = f"Reference: {OURS} (the preset's proposed method)."
GROUPS = ["fedavg", "fedlaavg", "mifa"]
REFERENCE = """() => { const s = document.querySelector('select[name=reference]');
  return s && [s.value, s.selectedOptions[0]?.textContent]; }"""


def test_page_rest_sdk_and_cli_name_the_same_reference(
    browser: Any,
    server: str,
    page_errors: list[str],
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "compare"
    cli_args = ["compare", "example1", "--seeds", "3", "--set", "rounds=40", "--jobs", "2",
                "--out", str(out), "--server", server, "--label", f"fedlaavg={OURS}"]  # fmt: skip
    assert main(cli_args) == 0
    printed = capfd.readouterr()  # the runs' processes say where each went
    ids = sorted(int(i) for i in re.findall(r"recorded as run (\d+) at", printed.err))
    assert len(ids) == 9
    cli = main_table(out)

    with httpx.Client(base_url=server, timeout=30) as client:
        eventually(lambda: finished(client, ids), "the CLI's runs finished on the server", 120)
        query = {"runs": ",".join(map(str, ids[::-1]))}  # any order: the same groups
        rest = client.get("/api/compare", params=query).json()
        labelled = {**query, "labels": f"fedlaavg:{OURS}"}
        rest_renamed = client.get("/api/compare", params=labelled).json()
        rest_tex = client.get("/api/compare", params={**labelled, "format": "tex"}).text
    fw = FedWatch(server, spool_dir=tmp_path / "spool")
    sdk = fw.compare(ids)
    sdk_renamed = fw.compare(ids, labels={"fedlaavg": OURS})

    # The CLI: its own grouping of its own runs (renamed by --label)
    assert (cli["reference"], cli["reference_label"]) == ("fedlaavg", OURS)
    assert [r["group"] for r in cli["rows"]] == GROUPS
    assert RENAMED in printed.out and RENAMED in cli["caption"]
    assert f"{OURS} (reference) &" in (out / "table.tex").read_text()
    # REST and the SDK: the server's grouping of the same runs
    assert (rest["reference"], rest["reference_label"], rest["reference_why"]) == (
        "fedlaavg", "FedLaAvg", "preset",
    )  # fmt: skip
    assert [r["group"] for r in rest["table"]] == GROUPS and SAID in rest["caption"]
    assert (sdk.attrs["reference"], sdk.attrs["reference_why"]) == ("FedLaAvg", "preset")
    assert list(sdk.index) == ["FedAvg", "FedLaAvg", "MIFA"] and sdk["reference"].sum() == 1
    assert sdk.loc["FedLaAvg", "reference"]
    assert (rest_renamed["reference"], rest_renamed["reference_label"]) == ("fedlaavg", OURS)
    assert RENAMED in rest_renamed["caption"] and f"{OURS} (reference) &" in rest_tex
    assert sdk_renamed.attrs["reference"] == OURS and sdk_renamed.loc[OURS, "reference"]
    # the same groups, kept runs and names
    for mine, theirs in zip(cli["rows"], rest_renamed["table"], strict=True):
        assert (mine["group"], mine["label"], mine["seeds"]) == (
            theirs["group"], theirs["label"], theirs["seeds"],
        )  # fmt: skip

    # The page
    with watched_page(browser, server, page_errors) as page:
        page.goto(f"{server}/#/compare?runs={','.join(map(str, ids))}")
        page.wait_for_function(f"() => ({ROWS})().length === 3")
        assert [group for group, _ in page.evaluate(ROWS)] == GROUPS
        assert page.evaluate(REFERENCE) == ["fedlaavg", "FedLaAvg"]
        assert SAID in page.inner_text("p.caption")

        page.click("tr[data-group=fedlaavg] button.rename")
        page.fill("tr[data-group=fedlaavg] input[name=label]", OURS)
        page.press("tr[data-group=fedlaavg] input[name=label]", "Enter")
        page.wait_for_function(f"() => ({ROWS})()[1]?.[1] === {OURS!r}")
        page.wait_for_function(f"() => ({REFERENCE})()?.[1] === {OURS!r}")
        assert page.evaluate(REFERENCE) == ["fedlaavg", OURS]
        page.wait_for_function(
            "(said) => document.querySelector('p.caption')?.innerText.includes(said)", arg=RENAMED
        )
        _, tex = download(page, "[data-files=table] button[data-format=tex]")
        assert f"{OURS} (reference) &" in tex.decode()


def main_table(out: Path) -> dict[str, Any]:
    """The CLI's one table (the preset has no variants), as `table.json` holds it."""
    (table,) = json.loads((out / "table.json").read_text())["variants"]
    return dict(table)


def finished(client: httpx.Client, ids: list[int]) -> bool:
    return all(client.get(f"/api/runs/{i}").json()["status"] == "succeeded" for i in ids)
