"""What a tuned comparison states: the protocol sentence that heads its table's caption,
the methods flagged for fewer finished trials than the budget, and the second table,
each method's chosen settings (text, CSV, Markdown, LaTeX)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from worker.results import cells
from worker.results.table import Format, TableNotes, latex_escape, write_csv
from worker.tune.study import TuneSpec

SAMPLER_NAMES = {"tpe": "TPE", "random": "random search", "grid": "grid search"}
PRUNER_NAMES = {"median": "median pruner", "hyperband": "Hyperband pruner", "none": "no pruning"}


@dataclass(frozen=True)
class Chosen:
    """One method's outcome: its best settings (None: no trial completed), the best
    validation objective, and its trials by state."""

    method: str
    params: Mapping[str, Any] | None
    value: float | None
    complete: int
    pruned: int
    failed: int

    @property
    def finished(self) -> int:
        return self.complete + self.pruned


def protocol(spec: TuneSpec, validation: float, final_seeds: int) -> str:
    """The caption's first sentence: how every method was tuned, then how it was tested."""
    space = "; ".join(d.describe() for d in spec.space)
    sampler = SAMPLER_NAMES[spec.sampler]
    seeds = len(spec.seeds)
    return (
        f"Each method tuned over {spec.trials} trials on validation "
        f"({validation:g} of each client's training data held out; objective "
        f"{spec.objective.spec.name}, mean over {seeds} tuning seed{'s' * (seeds > 1)}; "
        f"space {space}; {sampler}, sampler seed {spec.sampler_seed}; "
        f"{PRUNER_NAMES[spec.pruner]}); final: mean over {final_seeds} fresh seeds on the "
        "test set, with the best trial's settings trained on the whole training data."
    )


def shortfalls(chosen: Sequence[Chosen], budget: int) -> dict[str, str]:
    """Method → the flag of a method left with fewer finished trials than the budget."""
    return {
        c.method: f"{c.method} finished only {c.finished} of its {budget} trials "
        f"({c.failed} failed)."
        for c in chosen
        if c.finished < budget
    }


def tune_notes(
    notes: TableNotes, sentence: str, flags: Mapping[str, str], labels: Mapping[str, str]
) -> TableNotes:
    """The comparison table's notes with the protocol first and the flagged methods
    (by their label in the table) after it."""
    rows = dict(notes.rows)
    for method, flag in flags.items():
        label = labels.get(method, method)
        rows[label] = (*rows.get(label, ()), flag)
    return TableNotes((sentence, *flags.values(), *notes.caption), rows)


def settings_rows(chosen: Sequence[Chosen], keys: Sequence[str]) -> list[list[str]]:
    head = ["method", *keys, "best validation value", "complete", "pruned", "failed"]
    rows = [head]
    for c in chosen:
        values = [_shown(c.params.get(k)) if c.params else "—" for k in keys]
        best = "—" if c.value is None else f"{c.value:.4g}"
        rows.append([c.method, *values, best, str(c.complete), str(c.pruned), str(c.failed)])
    return rows


def settings_table(chosen: Sequence[Chosen], keys: Sequence[str], fmt: Format) -> str:
    """The chosen settings of every method, with its trials by state."""
    rows = settings_rows(chosen, keys)
    if fmt == "csv":
        return write_csv([list(r) for r in rows])
    if fmt == "md":
        lines = ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows]
        return "\n".join([lines[0], "|" + " --- |" * len(rows[0]), *lines[1:]]) + "\n"
    if fmt == "tex":
        body = [" & ".join(latex_escape(c) for c in r) + r" \\" for r in rows]
        return (
            "\n".join(
                [
                    r"\begin{table}[t]",
                    r"\centering",
                    r"\caption{Each method's settings chosen on validation.}",
                    r"\label{tab:fedwatch-tuned-settings}",
                    r"\begin{tabular}{l" + "r" * (len(rows[0]) - 1) + "}",
                    r"\toprule",
                    body[0],
                    r"\midrule",
                    *body[1:],
                    r"\bottomrule",
                    r"\end{tabular}",
                    r"\end{table}",
                ]
            )
            + "\n"
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return cells.plain(text).replace("|", "\\|")


def _shown(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)
