"""A preset comparison's tables: one per variant, a row per method, the baselines tested
against the proposed method and corrected together by `worker.engine.stats`, written
out by `worker.results.table`; this module only groups the runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from worker.engine.stats import Sample, Table, compare
from worker.results.cells import plain
from worker.results.table import (
    Format,
    columns,
    csv_head,
    csv_rows,
    render,
    table_json,
    write_csv,
)


@dataclass(frozen=True)
class Section:
    """The table of one variant ("" when the preset has none)."""

    variant: str
    table: Table
    targets: list[float | None]
    values: dict[str, dict[str, list[float | None]]]  # method -> value -> one per seed


def build(
    runs: list[dict[str, Any]],
    proposed: str,
    order: list[str],
    variants: list[str],
    alpha: float,
    targets: list[float | None],
    names: list[str] | None = None,
) -> list[Section]:
    """`runs`: dicts with group (the variant), algorithm, seed and metrics (the run's
    summary); a table per variant, its rows in `order`, its columns `names` (default:
    every compared value)."""
    sections = []
    for variant in variants:
        samples: dict[str, list[Sample]] = {alg: [] for alg in order}
        for run in sorted(runs, key=lambda r: r["seed"]):
            if run["group"] == variant and run["algorithm"] in samples:
                samples[run["algorithm"]].append(Sample(run["seed"], run["metrics"]))
        table = compare(samples, proposed, alpha, names)
        values = {
            alg: {c.name: [s.values.get(c.name) for s in done] for c in table.columns}
            for alg, done in samples.items()
        }
        sections.append(Section(variant, table, targets, values))
    return sections


def render_all(sections: list[Section], fmt: Format) -> str:
    """Each variant's table in `fmt`, headed by the variant's name where there are
    several (a Markdown heading, a LaTeX comment, a text line; in CSV, one table with a
    variant column)."""
    if len(sections) == 1 and not sections[0].variant:
        return render(sections[0].table, fmt, sections[0].targets)
    if fmt == "csv":
        shown = {c.spec.name: c for s in sections for c in columns(s.table, s.targets)}
        cols = [shown[c.name] for c in sections[0].table.columns if c.name in shown]
        rows = [[s.variant, *row] for s in sections for row in csv_rows(s.table, cols)]
        return write_csv([["variant", *csv_head(cols)], *rows])
    heading = {"md": "## {}\n", "tex": "% variant: {}", "text": "{}:"}[fmt]
    return "\n\n".join(
        heading.format(plain(s.variant)) + "\n" + render(s.table, fmt, s.targets) for s in sections
    )


def sections_json(preset: str, sections: list[Section]) -> dict[str, Any]:
    return {
        "preset": preset,
        "variants": [
            {"variant": s.variant, **table_json(s.table, s.targets), "values": s.values}
            for s in sections
        ],
    }
