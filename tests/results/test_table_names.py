"""What a comparison table calls things: each group by its label in every format, the
grouping's notes in every caption and the CSV's notes column, headings that name a unit
once and the target a value counts to."""

from __future__ import annotations

import csv
import io

import pytest

from worker.engine import metrics
from worker.results.stats import Sample, Table, compare
from worker.results.table import (
    Column,
    TableNotes,
    labelled,
    render,
    table_json,
    target_heading,
)

NOTES = TableNotes(
    ("Reference: FedLaAvg (the preset's proposed method).", "FedAvg: seed 0 ran 2 times."),
    {"FedAvg": ("FedAvg: seed 0 ran 2 times.",)},
)
LABELS = {"fedavg": "FedAvg", "fedlaavg": "FedLaAvg"}


def keyed() -> Table:
    groups = {
        g: [Sample(s, {"best_test_acc": 0.5 + 0.1 * s + (0.05 if g == "fedlaavg" else 0)})
            for s in (0, 1, 2)]
        for g in ("fedavg", "fedlaavg")
    }  # fmt: skip
    return compare(groups, "fedlaavg", names=["best_test_acc"])


def test_every_format_names_groups_by_label_and_carries_the_notes() -> None:
    table = labelled(keyed(), LABELS)

    files = {fmt: render(table, fmt, (), NOTES) for fmt in ("text", "md", "tex", "csv")}

    assert table.reference == "FedLaAvg" and {t.reference for t in table.tests} == {"FedLaAvg"}
    for fmt in ("text", "md"):
        assert "FedLaAvg (reference)" in files[fmt] and "fedavg" not in files[fmt]
        assert (
            "Reference: FedLaAvg (the preset's proposed method). FedAvg: seed 0 ran 2"
            in (files[fmt])
        )
    assert "FedLaAvg (reference) &" in files["tex"] and "seed 0 ran 2 times" in files["tex"]
    rows = list(csv.DictReader(io.StringIO(files["csv"])))
    assert [(r["group"], r["notes"]) for r in rows] == [
        ("FedAvg", "FedAvg: seed 0 ran 2 times."),
        ("FedLaAvg", ""),
    ]


def test_json_keeps_the_keys_and_adds_the_labels() -> None:
    doc = table_json(keyed(), (), NOTES, LABELS)

    assert [(r["group"], r["label"]) for r in doc["rows"]] == list(LABELS.items())
    assert doc["reference"] == "fedlaavg"
    assert "FedLaAvg" in doc["caption"] and "fedlaavg" not in doc["caption"]  # by label
    assert doc["caption"].endswith("FedAvg: seed 0 ran 2 times.")


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("best_test_acc", "best acc (%)"),
        ("wall_s", "wall time (s)"),
        ("rounds_to_target", "rounds→90 %"),
        ("time_to_target_s", "time→90 % (s)"),
        ("dropped_updates_avg", "dropped updates, average"),  # "updates" once
        ("client_updates_per_s", "updates/s"),  # not "updates/s (1/s)"
        ("update_staleness_mean_avg", "update staleness mean, average (versions)"),
    ],
)
def test_headings_name_a_unit_once_and_the_target(name: str, title: str) -> None:
    spec = metrics.by_name()[name]

    assert Column(spec, target_heading(spec, [0.9])).title == title


def test_the_caption_says_what_time_to_target_counts() -> None:
    groups = {"a": [Sample(s, {"time_to_target_s": 10.0 + s}) for s in (0, 1)]}
    table = compare(groups, "a", names=["time_to_target_s"])

    text = render(table, "md", [0.9])

    assert "| time→90 % (s) |" in text
    assert "time→90 %: simulated seconds until the test accuracy first reached 90 %." in text
