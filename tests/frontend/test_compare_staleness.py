"""The compare page of a synchronous and an asynchronous method in Chromium: the async
one's update staleness can be plotted beside the other's curves, and the config diff
lists each run's own components' parameters only (FedAvg's row no FedBuff's)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.helpers import submit, wait_final

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CONFIG_CELLS = """() => Object.fromEntries([...document.querySelectorAll('.summary-table tbody tr')]
  .map((tr) => [tr.dataset.group,
   [...tr.querySelectorAll('td[data-key=config] > div')].map((d) => d.textContent)]))"""
OPTIONS = "() => [...document.querySelectorAll('select[name=metric] option')].map((o) => o.value)"
GROUPS = """() => (document.querySelector('[data-plot=compare]')?.data || [])
    .filter((t) => t.meta && t.meta.group).map((t) => [t.meta.group, t.x.length])"""


def config(algorithm: str, concurrency: int) -> dict[str, Any]:
    return {
        "name": algorithm,
        "rounds": 8,
        "device": "cpu",
        "data": {"n_clients": 12},
        "availability": {"kind": "bernoulli", "bernoulli": {"profile": "uniform", "p_min": 0.3}},
        # FedAvg never reads FedBuff's parameters: they differ here, and are not shown
        "algorithm": {"name": algorithm, "fedbuff": {"concurrency": concurrency, "buffer": 2}},
        "system": {"kind": "profiles"},
    }


def test_update_staleness_is_plotted_and_the_diff_holds_used_parameters(
    page: Any, server: str
) -> None:
    with httpx.Client(base_url=server) as api:
        ids = [submit(api, config(a, c))["id"] for a, c in (("fedavg", 3), ("fedbuff", 4))]
        assert all(wait_final(api, i)["status"] == "succeeded" for i in ids)
        versions = api.get(f"/api/runs/{ids[1]}/metrics", params={"names": "update_staleness_mean"})
    rounds = versions.json()["series"]["update_staleness_mean"]["round"]

    page.goto(f"{server}/#/compare?runs={','.join(map(str, ids))}")
    page.wait_for_function(f"() => ({OPTIONS})().includes('update_staleness_mean')")
    label = page.locator("select[name=metric] option[value=update_staleness_mean]").inner_text()
    assert label == "update staleness mean"
    page.select_option("select[name=metric]", "update_staleness_mean")
    page.wait_for_function(f"() => ({GROUPS})().some(([g, n]) => g === 'fedbuff' && n > 0)")
    drawn = dict(page.evaluate(GROUPS))
    assert drawn["fedbuff"] == len(rounds) and drawn.get("fedavg", 0) == 0
    assert "update staleness mean" in page.evaluate(
        "() => document.querySelector('[data-plot=compare]').layout.title.text"
    )

    page.wait_for_function(f"() => Object.keys(({CONFIG_CELLS})()).length === 2")
    assert page.evaluate(CONFIG_CELLS) == {
        "fedavg": ["algorithm.name = fedavg"],
        "fedbuff": ["algorithm.name = fedbuff"],
    }  # before: algorithm.fedbuff.concurrency = 3 in FedAvg's row, 4 in FedBuff's
