"""The figure routes' figures, measured as they are saved: a run's and a comparison's, at
a column's width and at full width, keep their legend and notes off the data and the
labels (tests/results/test_figure_layout.py measures every kind of figure)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.api.test_results_out import logged_run
from tests.results.test_figure_layout import Overlaps, measured_saves
from worker.results import figures


@pytest.mark.parametrize("width", ["column", "full"])
def test_run_and_compare_figures_keep_legend_and_notes_off_the_data(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, width: figures.Width
) -> None:
    ids = [logged_run(client, seed=s, name=f"fig{s}")[0] for s in (30, 31)]
    drawn = measured_saves(monkeypatch)

    run = client.get(f"/api/runs/{ids[0]}/figure.pdf", params={"width": width})
    both = client.get(
        "/api/compare/figure.pdf",
        params={"runs": ",".join(map(str, ids)), "band": "ci", "width": width},
    )

    assert run.status_code == both.status_code == 200
    assert [d.overlaps for d in drawn] == [Overlaps(0, 0, 0, 0)] * 2
    assert drawn[0].notes == []  # a run's figure: one run, no band
    # the two logged runs' accuracies are the same: no band, said in the caption
    assert drawn[1].notes == ["mean of n = 2 runs per group; identical runs, no band: external"]
