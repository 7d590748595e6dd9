"""The compare page where nothing varies across seeds: no test, the constant difference
and "identical across seeds" in the cells; the figures of the machine apart, after the
method's values, never tested."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def deterministic(server: str, algorithm: str, seed: int, acc: float) -> int:
    """A finished external run whose accuracy is the same for every seed."""
    body = {"source": "external", "name": f"{algorithm}-{seed}", "n_clients": 2,
            "config": {"algorithm": algorithm, "seed": seed}}  # fmt: skip
    response = httpx.post(f"{server}/api/runs", json=body)
    assert response.status_code == 201, response.text
    run_id: int = response.json()["id"]
    rounds = [{"round": t, "metrics": {"test_acc": acc}} for t in range(5)]
    assert httpx.post(f"{server}/api/runs/{run_id}/rounds", json={"rounds": rounds}).is_success
    assert httpx.post(f"{server}/api/runs/{run_id}/finish", json={"status": "succeeded"}).is_success
    return run_id


def test_identical_seeds_and_the_machine_apart(page: Any, server: str) -> None:
    accuracy = {"same-a": 0.905, "same-b": 0.900}
    ids = [
        deterministic(server, alg, seed, acc) for alg, acc in accuracy.items() for seed in (0, 1, 2)
    ]

    page.goto(f"{server}/#/compare?runs={','.join(map(str, ids))}&reference=same-a")
    cell = page.locator(".summary-table tr[data-group=same-b] td[data-key=best_test_acc]")
    cell.wait_for()

    # Before: "better · Holm p < 0.001", a paired t-test on constant differences.
    assert "identical across seeds" in cell.inner_text()
    assert "no test · Δ -0.5000 (constant)" in cell.inner_text()
    assert "Holm" not in cell.inner_text()
    test = page.inner_text(".summary-table tr[data-group=same-b] td[data-key=ttest]")
    assert test.startswith("deterministic: the values differ by a constant")
    caption = page.inner_text("p.caption")
    assert (
        "same-b and same-a are identical across their 3 seeds (deterministic): no test" in caption
    )
    page.click(".column-chooser summary")
    page.check("input[name=column-wall_s]")
    wall = page.locator(".summary-table th[data-key=wall_s]")
    wall.wait_for()
    assert "machine (not compared)" in wall.inner_text()
    heads = page.eval_on_selector_all(
        ".summary-table thead th", "ths => ths.map((th) => th.dataset.key)"
    )
    assert heads[-1] == "wall_s"  # after every value of the method
    wall_cells = page.locator(".summary-table td[data-key=wall_s]").all_inner_texts()
    assert len(wall_cells) == 2 and not any("Holm" in c or "no test" in c for c in wall_cells)
