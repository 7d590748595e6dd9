"""A paper comparison's table: per method, mean ± std over seeds of the run metrics,
and the paired t-test of each baseline against the proposed method across seeds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from worker.engine.stats import paired_p

# (key, heading, scale) of the per-run metrics, accuracy shown in %
METRICS: tuple[tuple[str, str, float], ...] = (
    ("best_test_acc", "best", 100.0),
    ("final_test_acc", "final", 100.0),
    ("time_avg_test_acc", "time-avg", 100.0),
    ("std_test_acc_second_half", "std 2nd half", 100.0),
    ("rounds_to_target", "rounds→target", 1.0),
    ("client_acc_mean", "client mean", 100.0),
    ("client_acc_var", "client var (%²)", 1e4),
    ("client_acc_worst10", "worst 10%", 100.0),
    ("client_acc_best10", "best 10%", 100.0),
)
TESTED = ("time_avg_test_acc", "final_test_acc")  # paired t-tests on these
CLIENT_KEYS = ("client_acc_mean", "client_acc_var", "client_acc_worst10", "client_acc_best10")


def run_metrics(summary: dict[str, Any], rounds: list[dict[str, Any]]) -> dict[str, float | None]:
    """The table's metrics of one run: its summary plus the last per-client evaluation."""
    out: dict[str, float | None] = {key: summary.get(key) for key, _, _ in METRICS}
    last = next((r for r in reversed(rounds) if "client_acc_mean" in r), None)
    for key in CLIENT_KEYS:
        out[key] = None if last is None else last[key]
    return out


@dataclass
class Row:
    group: str  # variant ("" when the preset has none)
    algorithm: str
    proposed: bool
    seeds: list[int]
    values: dict[str, list[float | None]]  # metric -> one value per seed
    p_values: dict[str, float | None] = field(default_factory=dict)


def build_rows(
    runs: list[dict[str, Any]], proposed: str, order: list[str], groups: list[str]
) -> list[Row]:
    """`runs`: dicts with group, algorithm, seed and metrics; rows in `groups` × `order`."""
    rows = []
    for group in groups:
        by_alg: dict[str, list[dict[str, Any]]] = {}
        for run in runs:
            if run["group"] == group:
                by_alg.setdefault(run["algorithm"], []).append(run)
        for alg in order:
            done = sorted(by_alg.get(alg, []), key=lambda r: r["seed"])
            values = {k: [r["metrics"].get(k) for r in done] for k, _, _ in METRICS}
            rows.append(Row(group, alg, alg == proposed, [r["seed"] for r in done], values))
    for row in rows:
        ref = next((r for r in rows if r.group == row.group and r.proposed), None)
        if ref is None or row.proposed or ref.seeds != row.seeds:
            continue
        row.p_values = {k: paired_p(row.values[k], ref.values[k]) for k in TESTED}
    return rows


def cell(values: Sequence[float | None], scale: float) -> str:
    got = [v * scale for v in values if v is not None]
    if not got:
        return "—"
    mean = float(np.mean(got))
    text = f"{mean:.0f}" if scale == 1.0 else f"{mean:.2f}"
    if len(got) > 1:
        spread = float(np.std(got))
        text += f"±{spread:.0f}" if scale == 1.0 else f"±{spread:.2f}"
    if len(got) < len(values):
        text += f" ({len(got)}/{len(values)})"
    return text


def p_cell(p: float | None, row: Row) -> str:
    if row.proposed:
        return "(ref)"
    return "—" if p is None else f"{p:.3g}"


def format_table(rows: list[Row]) -> str:
    headings = ["algorithm", *(h for _, h, _ in METRICS), *(f"p({k[:-9]})" for k in TESTED)]
    headings = [h.replace("p(time_avg)", "p(time-avg)") for h in headings]
    lines = []
    for row in rows:
        name = f"{row.algorithm}*" if row.proposed else row.algorithm
        if row.group:
            name = f"{row.group} {name}"
        cells = [cell(row.values[k], scale) for k, _, scale in METRICS]
        lines.append([name, *cells, *(p_cell(row.p_values.get(k), row) for k in TESTED)])
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(headings)]
    out = ["  ".join(h.ljust(w) for h, w in zip(headings, widths, strict=True))]
    out += ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines]
    return "\n".join(out)


def rows_json(rows: list[Row]) -> list[dict[str, Any]]:
    return [
        {
            "group": r.group,
            "algorithm": r.algorithm,
            "proposed": r.proposed,
            "seeds": r.seeds,
            "values": r.values,
            "p_values": r.p_values,
        }
        for r in rows
    ]
