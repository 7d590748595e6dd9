"""The run page draws a private run's ε over rounds in one panel: the assumed ε, the worst
client's and the median client's, with the catalogue's labels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from db.migrate import upgrade
from db.runs import new_run
from db.session import make_engine, make_sessionmaker
from tests.db.records import record, write
from tests.frontend.conftest import screenshot, serve
from worker.engine import run_config_for
from worker.engine.components import current

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ASSUMED = [0.5, 0.8, 1.0, 1.2]
WORST = [1.5, 2.5, 3.2, 4.0]
MEDIAN = [0.0, 1.5, 1.5, 2.5]


def stored_run(url: str) -> int:
    """A finished run with central DP whose rounds carry the accountant's three figures."""
    config = run_config_for(current()).model_validate(
        {
            "rounds": len(ASSUMED),
            "data": {"n_clients": 4},
            "algorithm": {"participation": 2, "weights": "uniform"},
            "privacy": {"kind": "central"},
        }
    )
    engine = make_engine(url)
    try:
        sessions = make_sessionmaker(engine)
        with sessions.begin() as session:
            run = new_run(config.model_dump(mode="json"), queue="cpu", name="private")
            run.status = "succeeded"
            session.add(run)
            session.flush()
            run_id = run.id
        figures = zip(ASSUMED, WORST, MEDIAN, strict=True)
        rounds = [
            record(
                t,
                [0, 1, 2, 3],
                [t % 4],
                {
                    "test_acc": 0.5,
                    "epsilon_assumed": a,
                    "epsilon_client_max": w,
                    "epsilon_client_median": m,
                },
            )
            for t, (a, w, m) in enumerate(figures)
        ]
        write(sessions, run_id, 4, rounds)
        return run_id
    finally:
        engine.dispose()


def test_the_epsilon_panel_shows_the_three_figures(browser: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fedwatch.sqlite3'}"
    upgrade(url)
    run_id = stored_run(url)

    with serve(tmp_path) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server}/#/runs/{run_id}")
        page.wait_for_selector("[data-plot=curve-privacy] .legendtext")
        plot = "document.querySelector('[data-plot=curve-privacy]')"
        title = page.evaluate(f"() => {plot}.layout.title.text")
        traces = page.evaluate(f"() => {plot}.data.map((t) => ({{metric: t.meta.metric, y: t.y}}))")
        legend = page.locator("[data-plot=curve-privacy] .legendtext").all_text_contents()
        screenshot(page, "run-privacy")
        page.close()

    assert title == "Privacy loss ε at δ = privacy.delta"
    assert sorted((t["metric"], t["y"]) for t in traces) == [
        ("epsilon_assumed", ASSUMED),
        ("epsilon_client_max", WORST),
        ("epsilon_client_median", MEDIAN),
    ]
    assert sorted(legend) == [
        "ε as assumed (Poisson at K/N)",
        "ε of the median client",
        "ε of the worst client",
    ]


def test_the_client_view_shows_the_clients_by_epsilon(browser: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fedwatch.sqlite3'}"
    upgrade(url)
    run_id = stored_run(url)  # each of the 4 clients contributed to one round

    with serve(tmp_path) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server}/#/runs/{run_id}")
        page.wait_for_selector("[data-plot=privacy-clients] .bars")
        plot = "document.querySelector('[data-plot=privacy-clients]')"
        title = page.evaluate(f"() => {plot}.layout.title.text")
        bars = page.evaluate(f"() => {plot}.data.map((t) => ({{x: t.x, y: t.y}}))")
        marks = page.evaluate(f"() => {plot}.layout.annotations.map((a) => a.text)")
        screenshot(page, "run-privacy-clients")
        page.close()

    assert title.startswith("Per-client privacy loss ε at δ = 0.00001 after round 3")
    assert "not amplified" in title  # always available: no sampling to amplify
    [one] = bars
    assert one["y"] == [4]  # every client at the same ε: one bar of all 4
    assert [m.split(":")[0] for m in marks] == [
        "assumed (Poisson at K/N)",
        "median client",
        "worst client",
    ]
