"""A preset comparison's tables: one per variant, a row per method, the baselines tested
against the proposed method and corrected together by `worker.results.stats`, written
out by `worker.results.table`; the runs are grouped, named and kept (a seed's newest) by
`worker.results.grouping`, as the API groups them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from worker.engine import current
from worker.results.cells import plain
from worker.results.grouping import Grouping, RunRecord, group_runs, vocabulary_of
from worker.results.stats import Sample, Table, compare
from worker.results.table import (
    Format,
    TableNotes,
    columns,
    csv_head,
    csv_rows,
    labelled,
    render,
    table_json,
    write_csv,
)


@dataclass(frozen=True)
class Section:
    """The table of one variant ("" when the preset has none), its groups by method name
    (`grouping`: their labels, reference and warnings)."""

    variant: str
    table: Table
    targets: list[float | None]
    values: dict[str, dict[str, list[float | None]]]  # method -> value -> one per seed
    grouping: Grouping

    @property
    def notes(self) -> TableNotes:
        return self.grouping.table_notes()

    @property
    def shown(self) -> Table:
        """The table with its groups under their labels."""
        return labelled(self.table, self.grouping.labels)


def build(
    runs: list[dict[str, Any]],
    preset: str,
    order: list[str],
    variants: list[str],
    alpha: float,
    targets: list[float | None],
    names: list[str] | None = None,
    labels: Mapping[str, str] | None = None,
    reference: str | None = None,
) -> list[Section]:
    """`runs`: dicts with group (the variant), algorithm (the method's name), seed,
    metrics (the run's summary) and config; a table per variant of `preset`, its rows in
    `order`, its columns `names` (default: the grouping's), `labels` renaming methods,
    tested against `reference` (a method's name or label; default: the grouping's, the
    preset's proposed method)."""
    vocabulary = vocabulary_of(current())
    ranked = sorted(runs, key=lambda r: (order.index(r["algorithm"]), r["seed"]))
    sections = []
    for variant in variants:
        mine = {i: r for i, r in enumerate(ranked) if r["group"] == variant}
        records = [record(i, r, preset) for i, r in mine.items()]
        grouping = group_runs(records, vocabulary, "experiment_cell", reference, labels, names)
        samples = {
            g.key: [Sample(mine[i]["seed"], mine[i]["metrics"]) for i in g.runs]
            for g in grouping.groups
        }
        table = compare(samples, grouping.reference, alpha, grouping.columns)
        values = {
            alg: {c.name: [s.values.get(c.name) for s in done] for c in table.columns}
            for alg, done in samples.items()
        }
        sections.append(Section(variant, table, targets, values, grouping))
    return sections


def record(i: int, run: Mapping[str, Any], preset: str) -> RunRecord:
    config = run.get("config") or {}
    algorithm = str((config.get("algorithm") or {}).get("name") or run["algorithm"])
    return RunRecord(
        i, str(run.get("path", i)), algorithm, int(run["seed"]), config, float(i),
        cell=str(run["algorithm"]), preset=preset,
    )  # fmt: skip


def render_all(sections: list[Section], fmt: Format) -> str:
    """Each variant's table in `fmt`, headed by the variant's name where there are
    several (a Markdown heading, a LaTeX comment, a text line; in CSV, one table with a
    variant column)."""
    if len(sections) == 1 and not sections[0].variant:
        return render(sections[0].shown, fmt, sections[0].targets, sections[0].notes)
    if fmt == "csv":
        shown = {c.spec.name: c for s in sections for c in columns(s.table, s.targets)}
        cols = [shown[c.name] for c in sections[0].table.columns if c.name in shown]
        rows = [[s.variant, *row] for s in sections for row in csv_rows(s.shown, cols, s.notes)]
        return write_csv([["variant", *csv_head(cols)], *rows])
    heading = {"md": "## {}\n", "tex": "% variant: {}", "text": "{}:"}[fmt]
    return "\n\n".join(
        heading.format(plain(s.variant)) + "\n" + render(s.shown, fmt, s.targets, s.notes)
        for s in sections
    )


def sections_json(preset: str, sections: list[Section]) -> dict[str, Any]:
    return {
        "preset": preset,
        "variants": [
            {
                "variant": s.variant,
                **table_json(s.table, s.targets, s.notes, s.grouping.labels),
                "reference_label": s.grouping.reference_label,
                "warnings": [w.message for w in s.grouping.warnings],
                "values": s.values,
            }
            for s in sections
        ],
    }
