"""The run page draws a metric the front end has never heard of, from the catalogue the
server serves: a metric of a plug-in algorithm (a distribution on the served process's
path, with its entry point) shows in its declared panel with its label."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from db.migrate import upgrade
from db.runs import new_run
from db.session import make_engine, make_sessionmaker
from tests.db.records import record, write
from tests.frontend.conftest import screenshot, serve
from worker.engine import run_config_for
from worker.engine.components import current

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLUGIN = """
from fedwatch.plugins import MetricSpec, algorithm
from fedwatch.plugins import Algorithm


@algorithm("demo")
class Demo(Algorithm):
    metric_specs = (MetricSpec("demo_excluded", "clients excluded (demo)", panel="algorithm"),)
"""
ENTRY_POINTS = "[fedwatch.algorithms]\ndemo = demo_metric:Demo\n"
EXCLUDED = [3.0, 2.0, 2.0, 1.0, 0.0, 1.0]


def stored_run(url: str) -> int:
    """A finished run whose rounds carry `demo_excluded`, written as a worker writes them."""
    config = run_config_for(current()).model_validate(
        {"rounds": len(EXCLUDED), "data": {"n_clients": 4}, "algorithm": {"participation": 2}}
    )
    engine = make_engine(url)
    try:
        sessions = make_sessionmaker(engine)
        with sessions.begin() as session:
            run = new_run(config.model_dump(mode="json"), queue="cpu", name="plug-in metric")
            run.status = "succeeded"
            session.add(run)
            session.flush()
            run_id = run.id
        rounds = [
            record(t, [0, 1, 2, 3], [t % 4], {"test_acc": 0.5, "demo_excluded": v})
            for t, v in enumerate(EXCLUDED)
        ]
        write(sessions, run_id, 4, rounds)
        return run_id
    finally:
        engine.dispose()


def test_registered_round_metric_shows_in_its_panel(browser: Any, tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "demo_metric.py").write_text(PLUGIN)
    dist = plugin / "demo_metric-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-metric\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS)
    url = f"sqlite:///{tmp_path / 'fedwatch.sqlite3'}"
    upgrade(url)
    run_id = stored_run(url)
    path = os.pathsep.join(p for p in (str(plugin), os.environ.get("PYTHONPATH", "")) if p)

    with serve(tmp_path, PYTHONPATH=path) as server:
        names = [m["name"] for m in httpx.get(f"{server}/api/metrics/catalog").json()]
        assert "demo_excluded" in names
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server}/#/runs/{run_id}")
        page.wait_for_selector("[data-plot=curve-algorithm] .legendtext")
        plot = "document.querySelector('[data-plot=curve-algorithm]')"
        title = page.evaluate(f"() => {plot}.layout.title.text")
        traces = page.evaluate(
            f"() => {plot}.data.map((t) => ({{name: t.name, metric: t.meta.metric, y: t.y}}))"
        )
        legend = page.locator("[data-plot=curve-algorithm] .legendtext").all_text_contents()
        screenshot(page, "run-plugin-metric")
        page.close()

    assert title == "Algorithm metrics"
    assert traces == [{"name": "clients excluded (demo)", "metric": "demo_excluded", "y": EXCLUDED}]
    assert legend == ["clients excluded (demo)"]
