"""`GET /api/meta` and the catalogue serve the facts a page would otherwise spell: the x
axes and their address words, the default α, the comparison's choices, the timeline's
colours, each dataset's first metric and each metric's log scale."""

from __future__ import annotations

from typing import get_args

from fastapi.testclient import TestClient

from db.timeline import STATES
from worker.results.choices import Choice
from worker.results.curves import X_AXES, XAxis
from worker.results.figures import BAND_CHOICES, FIGURE_CHOICES, Band, FigureFormat
from worker.results.grouping import GROUP_BY_CHOICES, GroupBy
from worker.results.table import FILE_CHOICES, FORMATS


def test_meta_serves_the_pages_facts(client: TestClient) -> None:
    meta = client.get("/api/meta").json()
    assert [(a["key"], a["word"]) for a in meta["x_axes"]] == [
        ("round", "round"),
        ("wall_s", "wall"),
        ("sim_time_s", "sim"),
    ]
    assert meta["x_axes"][1]["title"] == "wall time (s)"
    assert meta["alpha"] == 0.05
    assert [c["name"] for c in meta["group_by"]] == ["algorithm", "experiment_cell", "none"]
    assert meta["bands"][1] == {"name": "ci", "label": "band: 95 % CI of the mean"}
    assert [c["label"] for c in meta["table_formats"]] == ["LaTeX", "CSV", "Markdown"]
    assert [c["name"] for c in meta["figure_formats"]] == ["pdf", "svg", "png"]
    timeline = meta["timeline_states"]
    assert [s["name"] for s in timeline] == list(STATES)
    assert timeline[0] == {"name": "offline", "colour": "#f2f2f2"}
    assert timeline[-1] == {"name": "dropped", "colour": "#d62728"}
    assert len({s["colour"] for s in timeline}) == len(timeline)  # no two states alike
    defaults = meta["default_metrics"]
    assert defaults["mean_estimation"] == "param"
    assert defaults["mnist"] == defaults["digits"] == "test_acc"


def test_the_catalogue_says_which_metrics_are_log_scaled(client: TestClient) -> None:
    logged = {m["name"] for m in client.get("/api/metrics/catalog").json() if m["log"]}
    assert logged == {"opt_gap"}


def names(choices: tuple[Choice, ...]) -> set[str]:
    return {c.name for c in choices}


def test_every_choice_is_a_value_the_api_takes() -> None:
    # A choice offered that the API refuses, or a value it takes that no page offers,
    # would fail here.
    assert names(GROUP_BY_CHOICES) == set(get_args(GroupBy))
    assert names(BAND_CHOICES) == set(get_args(Band))
    assert names(FIGURE_CHOICES) == set(get_args(FigureFormat))
    assert names(FILE_CHOICES) <= set(FORMATS)
    assert {a.key for a in X_AXES} == set(get_args(XAxis))
    assert len({a.word for a in X_AXES}) == len(X_AXES)
