"""The example plug-in FedAU (examples/fedau, in the test environment: `make`) end to end:
in the run-config schema, in the generated form, in `fedwatch plugins`, and in a run
executed by a real `fedwatch worker` (Postgres, Redis) whose page draws FedAU's own
metric."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.frontend.conftest import serve
from tests.frontend.test_pages import wait_status
from tests.service.conftest import StartWorker, broker_url, pg_url, start_worker  # noqa: F401  fixtures

pytestmark = [pytest.mark.browser, pytest.mark.service, pytest.mark.slow]

LABEL = "FedAU weight ω, mean over the trained clients"


def test_fedau_is_listed_by_fedwatch_plugins() -> None:
    fedwatch = shutil.which("fedwatch", path=str(Path(sys.executable).parent))
    assert fedwatch is not None
    out = subprocess.run([fedwatch, "plugins"], capture_output=True, text=True, check=True)
    line = next(x for x in out.stdout.splitlines() if "  fedau  " in x)
    assert line.strip().startswith("fedwatch.algorithms  fedau  ")
    assert re.search(r"fedau/algorithm\.py:\d+  \(fedwatch-fedau 0\.1\.0\)$", line)


def test_a_fedau_run_from_the_form_on_a_real_worker(
    browser: Any,
    tmp_path: Path,
    pg_url: str,  # noqa: F811
    broker_url: str,  # noqa: F811
    start_worker: StartWorker,  # noqa: F811
) -> None:
    start_worker("plugins")
    env = {"FEDWATCH_DATABASE_URL": pg_url, "FEDWATCH_BROKER_URL": broker_url}
    with serve(tmp_path, **env) as server:
        schema = httpx.get(f"{server}/api/schema/run-config").json()
        algorithm = schema["$defs"]["AlgorithmConfig"]["properties"]
        assert "fedau" in algorithm["name"]["enum"]
        params = schema["$defs"][algorithm["fedau"]["$ref"].rsplit("/", 1)[1]]
        assert params["properties"]["cutoff"]["default"] == 50

        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server}/#/new?preset=example1")
        page.wait_for_selector(".preset-info p")
        cutoff = page.locator('[name="algorithm.fedau.cutoff"]')
        assert not cutoff.is_visible()  # only the chosen algorithm's parameters show
        page.select_option('[name="algorithm.name"]', "fedau")
        cutoff.wait_for(state="visible")
        cutoff.fill("20")
        page.fill('[name="rounds"]', "300")
        page.click("button:has-text('Start run')")
        page.wait_for_url(re.compile(r"#/runs/\d+$"))
        run_id = int(page.url.rsplit("/", 1)[1])

        run = wait_status(server, run_id, {"succeeded", "failed"}, timeout=120)
        assert run["status"] == "succeeded", run["error"]
        assert run["worker"].startswith("plugins@test")  # executed by the worker process
        assert run["config"]["algorithm"]["fedau"] == {"cutoff": 20}
        curve = httpx.get(
            f"{server}/api/runs/{run_id}/metrics", params={"names": "fedau_weight_mean"}
        ).json()["series"]["fedau_weight_mean"]
        assert len(curve["round"]) > 0 and all(v >= 1 for v in curve["last"])

        page.goto(f"{server}/#/runs/{run_id}")
        plot = "document.querySelector('[data-plot=curve-algorithm]')"
        page.wait_for_function(
            f"() => {plot}?.data?.some((t) => t.meta?.metric === 'fedau_weight_mean')"
        )
        assert page.evaluate(f"() => {plot}.layout.title.text") == "Algorithm metrics"
        page.wait_for_selector("[data-plot=curve-algorithm] .legendtext")
        legend = page.locator("[data-plot=curve-algorithm] .legendtext").all_text_contents()
        assert LABEL in legend
        page.close()
