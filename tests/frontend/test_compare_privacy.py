"""The compare page's privacy views, in Chromium against a real `fedwatch serve`: the
preset dp-availability shrunk (three availability models, a few rounds and clients) shows
the three ε columns with values in its table and in every export; a sweep of noise
multipliers draws accuracy against the worst client's ε, a point per group at the
table's means with its CIs, the assumed ε beside it, the axes titled by the catalogue,
the axes chosen kept in the address."""

from __future__ import annotations

import csv
import io
from typing import Any

import httpx
import pytest

from tests.eventually import eventually
from tests.frontend.conftest import screenshot
from tests.frontend.test_results_out import download
from worker.engine import metrics
from worker.presets import get_preset

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PRESET = get_preset("dp-availability")
SHRUNK = ["rounds=6", "device=cpu", "data.n_clients=10", "algorithm.participation=5"]
EPSILONS = ["final_epsilon_assumed", "final_epsilon_client_max", "final_epsilon_client_median"]
SIGMAS = [0.5, 2.0]
TIMEOUT = httpx.Timeout(60)
PLOT = "document.querySelector('[data-plot=tradeoff]')"


def finished_experiment(server: str, body: dict[str, Any], *sets: str) -> dict[str, Any]:
    """Create the experiment on the preset shrunk (and `sets`) and wait until its runs
    succeeded; its JSON."""
    base = PRESET.run_config([*SHRUNK, *sets]).model_dump(mode="json")
    response = httpx.post(f"{server}/api/experiments", json={"base": base, **body}, timeout=TIMEOUT)
    assert response.status_code == 201, response.text
    experiment: dict[str, Any] = response.json()

    def succeeded() -> bool:
        runs = [httpx.get(f"{server}/api/runs/{i}", timeout=TIMEOUT).json()
                for i in experiment["run_ids"]]  # fmt: skip
        for run in runs:
            assert run["status"] not in ("failed", "cancelled"), run["error"]
        return all(run["status"] == "succeeded" for run in runs)

    eventually(succeeded, f"runs {experiment['run_ids']} succeeding", 300, every=0.5)
    return experiment


def test_the_table_and_its_exports_show_the_three_epsilons(server: str, page: Any) -> None:
    cells = [{"label": m.name, "set": m.assignments()} for m in PRESET.compare]
    experiment = finished_experiment(
        server, {"name": "dp-availability shrunk", "cells": cells, "seeds": [0]}
    )

    page.goto(f"{server}/#/compare?experiment={experiment['id']}")
    page.wait_for_selector(
        ".summary-table tbody tr[data-group] td[data-key=final_epsilon_client_max]"
    )
    headings = page.eval_on_selector_all(
        ".summary-table thead th", "(ths) => ths.map((th) => [th.dataset.key, th.title])"
    )
    cells_text = page.eval_on_selector_all(
        ".summary-table tbody tr",
        """(trs) => trs.map((tr) => Object.fromEntries([...tr.querySelectorAll('td[data-key]')]
          .map((td) => [td.dataset.key, td.firstChild?.textContent ?? ''])))""",
    )
    screenshot(page, "compare-dp-availability")
    _, table_csv = download(page, "[data-files=table] button[data-format=csv]")
    _, table_md = download(page, "[data-files=table] button[data-format=md]")
    _, table_tex = download(page, "[data-files=table] button[data-format=tex]")

    specs = metrics.by_name()
    shown = dict(headings)
    for name in EPSILONS:
        assert shown.get(name) == specs[name].label
    assert len(cells_text) == 3  # bernoulli, diurnal, markov
    for row in cells_text:
        for name in EPSILONS:
            assert row[name] not in ("", "—"), (name, row)
            assert float(row[name].split()[0]) >= 0
    rows = list(csv.DictReader(io.StringIO(table_csv.decode())))
    assert len(rows) == 3
    for name in EPSILONS:
        assert all(float(r[f"{name}[ε].mean"]) >= 0 for r in rows)
        assert any(float(r[f"{name}[ε].mean"]) > 0 for r in rows)
        short = specs[name].short
        assert short in table_md.decode() and short in table_tex.decode()


def point_traces(page: Any) -> list[dict[str, Any]]:
    return list(
        page.evaluate(
            f"""() => ({PLOT}?.data || []).map((t) => ({{kind: t.meta?.kind, group: t.meta?.group,
              x: t.x, y: t.y, ex: t.error_x?.visible, ey: t.error_y?.visible,
              groups: t.meta?.groups}}))"""
        )
    )


def axis_titles(page: Any) -> list[str]:
    return list(
        page.evaluate(f"() => [{PLOT}.layout.xaxis.title.text, {PLOT}.layout.yaxis.title.text]")
    )


def test_the_trade_off_chart_of_a_noise_sweep(server: str, page: Any) -> None:
    body = {
        "name": "noise sweep",
        "grid": {"privacy.central.noise_multiplier": SIGMAS},
        "seeds": [0, 1],
    }
    # Markov availability: a client's participation, and so its ε, varies by seed.
    experiment = finished_experiment(server, body, "availability.kind=markov")
    ids = ",".join(map(str, experiment["run_ids"]))
    rest = httpx.get(
        f"{server}/api/compare",
        params={"runs": ids, "group_by": "experiment_cell"},
        timeout=TIMEOUT,
    ).json()
    specs = metrics.by_name()
    x, y = rest["tradeoff"]["x"], rest["tradeoff"]["y"]
    # The runs are the preset's (its config's name): its headline accuracy is y.
    assert rest["headline"][0] == "final_test_acc"
    assert (x, y) == ("final_epsilon_client_max", "final_test_acc")

    page.goto(f"{server}/#/compare?experiment={experiment['id']}")
    page.wait_for_function(f"() => ({PLOT}?.data || []).length >= 3")
    traces = point_traces(page)
    titles = axis_titles(page)
    screenshot(page, "compare-tradeoff")

    means = {r["group"]: (r["stats"][x]["mean"], r["stats"][y]["mean"]) for r in rest["table"]}
    points = {t["group"]: (t["x"][0], t["y"][0]) for t in traces if t["kind"] == "point"}
    assert points == means and len(points) == len(SIGMAS)
    stats = {r["group"]: r["stats"] for r in rest["table"]}
    bars = [(t["ex"], t["ey"]) for t in traces if t["kind"] == "point"]
    cis = [
        tuple(stats[t["group"]][v]["ci_low"] is not None for v in (x, y))
        for t in traces
        if t["kind"] == "point"
    ]
    # Error bars where the table has a CI (two seeds whose values differ); a value the
    # same for both seeds (a worst client that joined every round) has none.
    assert bars == cis and any(ex or ey for ex, ey in bars), rest["table"]
    [assumed] = [t for t in traces if t["kind"] == "assumed"]
    assert assumed["x"] == [stats[g]["final_epsilon_assumed"]["mean"] for g in assumed["groups"]]
    assert assumed["y"] == [stats[g][y]["mean"] for g in assumed["groups"]]
    assert titles == [specs[x].label, specs[y].label]

    page.select_option("select[name=trade-x]", "final_epsilon_client_median")
    page.select_option("select[name=trade-y]", "best_test_acc")
    page.wait_for_function("() => location.hash.includes('ty=best_test_acc')")
    assert "tx=final_epsilon_client_median" in page.url
    page.reload()
    page.wait_for_function(
        f"() => {PLOT}?.layout?.yaxis?.title?.text === {specs['best_test_acc'].label!r}"
    )
    chosen = page.eval_on_selector_all("select[name^=trade-]", "(ss) => ss.map((s) => s.value)")
    assert chosen == ["final_epsilon_client_median", "best_test_acc"]
    assert axis_titles(page) == [
        specs["final_epsilon_client_median"].label,
        specs["best_test_acc"].label,
    ]
