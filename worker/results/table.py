"""A comparison table (`worker.results.stats.Table`) written out: aligned text for the
terminal, CSV, Markdown and LaTeX (booktabs). The one place that lays out a comparison:
`fedwatch compare --format`, `GET /api/compare?format=` and the compare page's buttons
all come here.

Every format shows the same cells: mean ± std in the number format of `numbers.py` and
the catalogue's unit, the best mean of each compared column in bold, a dagger where the
group differs from the reference after the table's correction, and a caption that states
the seeds, the test, the correction, α, how the intervals were drawn, and in words where
nothing varied (a deterministic run: no test, the constant difference). Figures of the
machine (`MetricSpec.machine`: wall time, updates/s) come apart from the method's
values, after them under "machine (not compared)": never tested, never in bold. The CSV
carries every number at full precision (in the same unit), the confidence intervals and
how they were drawn, and both p-values.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from worker.engine import MetricSpec
from worker.results import cells as safe
from worker.results import numbers
from worker.results.choices import Choice
from worker.results.stats import (
    BOOTSTRAP_FROM,
    IDENTICAL,
    INTERVALS,
    MIN_PAIRS,
    GroupTest,
    Row,
    Stat,
    Table,
)

Format = Literal["text", "csv", "md", "tex"]
FORMATS: tuple[Format, ...] = ("text", "csv", "md", "tex")
FILE_CHOICES = (Choice("tex", "LaTeX"), Choice("csv", "CSV"), Choice("md", "Markdown"))
"""The formats a page offers a table in, as files."""
MEDIA_TYPES = {
    "text": "text/plain",
    "csv": "text/csv",
    "md": "text/markdown",
    "tex": "application/x-tex",
}
MARK = "†"
TARGET_METRIC = "rounds_to_target"
MACHINE = "machine (not compared)"
MACHINE_NOTE = "figures of the machine and its load, not of the method: never tested or marked best"
TARGETED = {
    TARGET_METRIC: ("rounds→", "rounds"),
    "time_to_target_s": ("time→", "simulated seconds"),
}
"""The values counted up to the target accuracy: the heading's start, what they count."""


@dataclass(frozen=True)
class TableNotes:
    """What the grouping says about a table (`worker.results.grouping`): sentences that
    end its caption (the reference, columns left out, warnings), and each group's own
    warnings (the CSV's `notes` column), by the group's name in the table."""

    caption: tuple[str, ...] = ()
    rows: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


NO_NOTES = TableNotes()


@dataclass(frozen=True)
class Column:
    spec: MetricSpec
    heading: str

    @property
    def title(self) -> str:
        """The heading with its unit: "best acc (%)" (not where the heading names it
        already: "rounds→60 %", "dropped updates, average", "updates/s" for 1/s)."""
        unit = self.spec.unit
        named = re.search(rf"(?<!\w){re.escape(unit)}(?!\w)", self.heading)
        per = unit.startswith("1/") and self.heading.endswith(unit[1:])
        if not unit or named or per:
            return self.heading
        return f"{self.heading} ({unit})"


def target_heading(spec: MetricSpec, targets: Sequence[float | None]) -> str:
    """The heading of a value counted to the target accuracy names it: "rounds→60 %",
    "time→90 %"."""
    named = sorted({t for t in targets if t is not None})
    if spec.name not in TARGETED or not named:
        return spec.heading
    return TARGETED[spec.name][0] + " / ".join(f"{numbers.value(t, 100.0)} %" for t in named)


def columns(table: Table, targets: Sequence[float | None] = ()) -> list[Column]:
    """The compared values some group has (a column of dashes says nothing): the method's
    first, then the figures of the machine (`ordered`)."""
    return ordered(
        [
            Column(spec, target_heading(spec, targets))
            for spec in table.columns
            if any(row.stats[spec.name].n for row in table.rows)
        ]
    )


def ordered(cols: Sequence[Column]) -> list[Column]:
    """The method's values, then the figures of the machine, each in the order given."""
    return [c for c in cols if not c.spec.machine] + [c for c in cols if c.spec.machine]


def cell(stat: Stat, spec: MetricSpec) -> numbers.Formatted | None:
    """The mean ± std; the value alone where every run has it (`identical`: a "± 0"
    would read as a measured spread, and the caption says why there is none)."""
    std = None if stat.identical else stat.std
    return numbers.mean_std(stat.mean, std, spec.scale, (stat.ci_low, stat.ci_high))


def best(table: Table, spec: MetricSpec) -> set[str]:
    """The groups with the best mean of a value that has a direction and is not a figure
    of the machine (two groups or more with a mean; all of them on a tie)."""
    means = {r.group: r.stats[spec.name].mean for r in table.rows}
    got = {g: m for g, m in means.items() if m is not None and math.isfinite(m)}
    if spec.better is None or spec.machine or len(got) < 2:
        return set()
    top = max(got.values()) if spec.better == "higher" else min(got.values())
    return {g for g, m in got.items() if m == top}


def tests_of(table: Table) -> dict[tuple[str, str], GroupTest]:
    return {(t.group, t.metric): t for t in table.tests}


def marked(test: GroupTest | None) -> bool:
    return test is not None and test.verdict in ("better", "worse")


def caption(
    table: Table,
    targets: Sequence[float | None] = (),
    best_shown: str = "in bold",
    notes: TableNotes = NO_NOTES,
) -> str:
    """What the table shows, in words: seeds, test, correction, α, the intervals, where
    nothing varied, the figures of the machine, then the grouping's `notes`; `best_shown`
    says how the best means are marked."""
    runs = sorted({r.n for r in table.rows})
    seeds = {tuple(r.seeds) for r in table.rows}
    n = " or ".join(map(str, runs))
    parts = [f"Mean ± sample std over {n} runs a group"]
    if len(seeds) == 1 and (only := next(iter(seeds))):
        parts[0] += f" (seeds {', '.join(map(str, only))})"
    parts[0] += f"; best mean of each compared column {best_shown}."
    cols = columns(table, targets)
    shown = {c.spec.name for c in cols}
    tests = [t for t in table.tests if t.metric in shown and t.n_group and t.n_reference]
    ran = [t for t in tests if t.test is not None]
    if table.reference is not None and tests:
        kinds = {t.test or "" for t in ran}
        used = {
            frozenset({"paired t"}): "paired t-tests (runs paired by seed)",
            frozenset({"Welch t"}): "Welch's t-tests (runs do not pair by seed)",
        }.get(frozenset(kinds), "paired t-tests where runs pair by seed, Welch's otherwise")
        if ran:
            parts.append(
                f"{MARK}: differs from {table.reference} by {used}, Holm–Bonferroni corrected "
                f"over {table.n_tests} test{'' if table.n_tests == 1 else 's'}, "
                f"α = {table.alpha:g}."
            )
        if any(t.test is None and t.degenerate is None for t in tests):
            parts.append(
                f"No test where fewer than {MIN_PAIRS} seeds pair, or fewer than {MIN_PAIRS} "
                "runs a group."
            )
    said = degenerate_notes(table, cols, parts)
    identical_notes(table, cols, said, parts)
    parts += interval_notes(table, cols)
    machine = [c.title for c in cols if c.spec.machine]
    if machine:
        parts.append(f"{MACHINE.capitalize()}: {', '.join(machine)}: {MACHINE_NOTE}.")
    named = sorted({t for t in targets if t is not None})
    acc = " / ".join(f"{numbers.value(t, 100.0)} %" for t in named)
    for name, (start, counted) in TARGETED.items():
        if named and name in shown:
            parts.append(f"{start}{acc}: {counted} until the test accuracy first reached {acc}.")
    return " ".join([*parts, *notes.caption])


def degenerate_notes(table: Table, cols: list[Column], parts: list[str]) -> set[tuple[str, str]]:
    """A sentence per group whose tests found nothing that varies ("FedLaAvg and FedAvg
    are identical across their 3 seeds (deterministic): no test; the difference
    (FedLaAvg − FedAvg) is the constant final acc −0.5000 %"); the (group, value) cells
    it speaks for."""
    rows = {r.group: r for r in table.rows}
    by_name = {c.spec.name: c for c in cols}
    said: set[tuple[str, str]] = set()
    for group in rows:
        mine = [t for t in table.tests if t.group == group and t.metric in by_name]
        flat = [t for t in mine if t.degenerate and t.n_group and t.n_reference]
        if not flat:
            continue
        ref = rows[flat[0].reference]
        both = [rows[group], ref]
        on = "" if len(flat) == len(mine) else f" on {', '.join(_titles(flat, by_name))}"
        if all(r.stats[t.metric].identical for t in flat for r in both):
            counts = {r.n for r in both}
            their = f"their {counts.pop()} seeds" if len(counts) == 1 else "their seeds"
            lead = f"{group} and {ref.group} are identical across {their}{on} (deterministic)"
            said |= {(r.group, t.metric) for t in flat for r in both}
        else:
            lead = f"{group} − {ref.group} is the same in every pair of seeds{on}"
        constant = [
            f"{by_name[t.metric].title} {_signed(t, by_name[t.metric].spec)}"
            for t in flat
            if t.degenerate == "constant"
        ]
        equal = _titles([t for t in flat if t.degenerate == "identical"], by_name)
        what = [f"the difference ({group} − {ref.group}) is the constant {', '.join(constant)}"]
        what = (what if constant else []) + ([f"equal on {', '.join(equal)}"] if equal else [])
        parts.append(f"{lead}: no test; {'; '.join(what)}.")
    return said


def _titles(tests: list[GroupTest], by_name: dict[str, Column]) -> list[str]:
    return [by_name[t.metric].title for t in tests]


def _signed(t: GroupTest, spec: MetricSpec) -> str:
    """A constant difference with its unit: "−0.5000 %"."""
    diff = difference(t, spec, interval=False)
    return f"{diff} {spec.unit}" if spec.unit else diff


def identical_notes(
    table: Table, cols: list[Column], said: set[tuple[str, str]], parts: list[str]
) -> None:
    """Where a group's values are the same in each of its runs (no interval), unless a
    deterministic pair already said so."""
    for row in table.rows:
        same = [
            c.title
            for c in cols
            if row.stats[c.spec.name].identical and (row.group, c.spec.name) not in said
        ]
        if same:
            where = ", ".join(same)
            parts.append(f"{row.group} is identical across its {row.n} seeds on {where}: no CI.")


def interval_notes(table: Table, cols: list[Column]) -> list[str]:
    """How the 95 % intervals of the means (the CSV's, the page's) were drawn, and for
    which columns: "95 % CI of the mean: a t-interval on the logit scale (best acc (%))
    … (n < 5: a bootstrap is unreliable)"."""
    kinds: dict[str, list[str]] = {}
    for c in cols:
        for kind in dict.fromkeys(row.stats[c.spec.name].interval for row in table.rows):
            if kind is not None:
                kinds.setdefault(kind, []).append(c.title)
    if not kinds:
        return []
    ways = [f"{INTERVALS[k]} ({', '.join(kinds[k])})" for k in INTERVALS if k in kinds]
    small = set(kinds) - {"bootstrap"}
    why = f" (n < {BOOTSTRAP_FROM}: a bootstrap is unreliable)" if small else ""
    return [f"95 % CI of the mean: {'; '.join(ways)}{why}; inside each value's range."]


def render(
    table: Table, fmt: Format, targets: Sequence[float | None] = (), notes: TableNotes = NO_NOTES
) -> str:
    """The table in `fmt`."""
    writer = {"text": text, "csv": to_csv, "md": markdown, "tex": latex}[fmt]
    return writer(table, targets, notes)


def _name(table: Table, row: Row) -> str:
    return f"{row.group} (reference)" if row.group == table.reference else row.group


def _cells(
    table: Table, row: Row, cols: list[Column], bold: Literal["md", "tex", "text"]
) -> list[str]:
    tests = tests_of(table)
    out = []
    for col in cols:
        got = cell(row.stats[col.spec.name], col.spec)
        if got is None:
            out.append("–" if bold != "tex" else "--")
            continue
        body = got.latex if bold == "tex" else got.text
        if row.group in best(table, col.spec):
            body = {"md": f"**{body}**", "tex": got.latex_bold, "text": body + " *"}[bold]
        if marked(tests.get((row.group, col.spec.name))):
            body += "$^\\dagger$" if bold == "tex" else MARK
        total = row.n
        if row.stats[col.spec.name].n < total:
            body += f" ({row.stats[col.spec.name].n}/{total})"
        out.append(body)
    return out


def text(table: Table, targets: Sequence[float | None] = (), notes: TableNotes = NO_NOTES) -> str:
    """Aligned columns for a terminal, the figures of the machine in a block of their own
    below, then the caption (best values end in " *") and a line per test."""
    method, machine = _split(columns(table, targets))
    out = _aligned(table, method) if method or not machine else []
    if machine:
        out += ([""] if out else []) + [f"{MACHINE}: {MACHINE_NOTE}", *_aligned(table, machine)]
    shown = [*out, "", caption(table, targets, "marked *", notes), *test_lines(table)]
    return "\n".join(map(safe.plain, shown))


def _split(cols: list[Column]) -> tuple[list[Column], list[Column]]:
    return [c for c in cols if not c.spec.machine], [c for c in cols if c.spec.machine]


def _aligned(table: Table, cols: list[Column]) -> list[str]:
    lines = [[_name(table, r), *_cells(table, r, cols, "text")] for r in table.rows]
    headings = ["group", *(c.title for c in cols)]
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(headings)]
    out = ["  ".join(h.ljust(w) for h, w in zip(headings, widths, strict=True)).rstrip()]
    return out + [
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in lines
    ]


def test_lines(table: Table) -> list[str]:
    """One line per test: the difference, its CI, the effect size, both p-values; where
    no test ran, why (and the difference, where nothing varied)."""
    specs = {c.name: c for c in table.columns}
    lines = []
    for t in table.tests:
        spec = specs[t.metric]
        what = f"  {t.group} vs {t.reference}, {spec.heading}: "
        if t.n_group == 0 or t.n_reference == 0:
            continue  # a value one side lacks: nothing to say
        if t.test is None:
            diff = f"; Δ {difference(t, spec)}" if t.degenerate else ""
            lines.append(what + f"no test ({t.reason}{diff})")
            continue
        d = "" if t.effect_size is None else f", d {t.effect_size:+.2f}"
        lines.append(
            what + f"Δ {difference(t, spec)}{d}, {t.test}, {numbers.p_value(t.p_value)}, "
            f"Holm {numbers.p_value(t.p_adjusted)}: {t.verdict}"
        )
    return ["", "Tests against the reference:", *lines] if lines else []


def difference(t: GroupTest, spec: MetricSpec, interval: bool = True) -> str:
    """The mean difference and its 95 % CI in the metric's unit: "+11.0 [+8.5, +13.5]";
    where nothing varied, the difference and what it is: "−0.5000 (constant)", "+0
    (identical)" (`interval=False`: the difference alone)."""
    if t.mean_diff is None:
        return "–"
    if t.degenerate is not None:
        diff = numbers.signed(t.mean_diff, spec.scale)
        return f"{diff} ({t.degenerate})" if interval else diff
    spread = None if t.ci_high is None or t.ci_low is None else (t.ci_high - t.ci_low) / 2
    diff = numbers.signed(t.mean_diff, spec.scale, spread)
    if t.ci_low is None or t.ci_high is None or not interval:
        return diff
    low, high = (numbers.signed(v, spec.scale, spread) for v in (t.ci_low, t.ci_high))
    return f"{diff} [{low}, {high}]"


def markdown(
    table: Table, targets: Sequence[float | None] = (), notes: TableNotes = NO_NOTES
) -> str:
    """A Markdown table, the figures of the machine in a table of their own below it."""
    method, machine = _split(columns(table, targets))
    lines = _md_table(table, method) if method or not machine else []
    if machine:
        lines += ([""] if lines else []) + [f"*{MACHINE}*: {MACHINE_NOTE}", ""]
        lines += _md_table(table, machine)
    return "\n".join([*lines, "", safe.plain(caption(table, targets, notes=notes))]) + "\n"


def _md_table(table: Table, cols: list[Column]) -> list[str]:
    head = ["group", *(c.title for c in cols)]
    lines = [_md_row(head), _md_row(["---"] + ["--:"] * len(cols))]
    return lines + [_md_row([_name(table, r), *_cells(table, r, cols, "md")]) for r in table.rows]


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(safe.plain(c).replace("|", "\\|") for c in cells) + " |"


LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
LATEX_UNICODE = {
    "x̄": r"$\bar{x}$",
    "→": r"$\rightarrow$",
    "±": r"$\pm$",
    "²": r"$^2$",
    "−": r"$-$",
    "×": r"$\times$",
    "·": r"$\cdot$",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "α": r"$\alpha$",
    "π": r"$\pi$",
    "λ": r"$\lambda$",
    "†": r"$^\dagger$",
    "–": "--",
    "—": "---",
}


def latex_escape(s: str) -> str:
    out = "".join(LATEX_SPECIAL.get(ch, ch) for ch in safe.plain(s))
    for plain, tex in LATEX_UNICODE.items():
        out = out.replace(plain, tex)
    return out


def latex(table: Table, targets: Sequence[float | None] = (), notes: TableNotes = NO_NOTES) -> str:
    """A booktabs `table` environment (needs `\\usepackage{booktabs}`); the figures of
    the machine in the last columns, under a heading of their own."""
    method, machine = _split(columns(table, targets))
    cols = method + machine
    spec = (
        "l" + "r" * len(method) + ("@{\\quad}" if method and machine else "") + "r" * len(machine)
    )
    head = [" & ".join(["Method", *(latex_escape(c.title) for c in cols)]) + r" \\"]
    if machine:
        first = len(method) + 2
        group = rf"\multicolumn{{{len(machine)}}}{{c}}{{{latex_escape(MACHINE)}}}"
        head = [
            " & ".join(["", *([""] * len(method)), group]) + r" \\",
            rf"\cmidrule(l){{{first}-{first + len(machine) - 1}}}",
            *head,
        ]
    body = [
        " & ".join([latex_escape(_name(table, r)), *_cells(table, r, cols, "tex")]) + r" \\"
        for r in table.rows
    ]
    return (
        "\n".join(
            [
                r"\begin{table}[t]",
                r"\centering",
                r"\caption{" + latex_escape(caption(table, targets, notes=notes)) + "}",
                r"\label{tab:fedwatch-comparison}",
                r"\begin{tabular}{" + spec + "}",
                r"\toprule",
                *head,
                r"\midrule",
                *body,
                r"\bottomrule",
                r"\end{tabular}",
                r"\end{table}",
            ]
        )
        + "\n"
    )


CSV_FIELDS = ("mean", "std", "ci_low", "ci_high", "ci", "n", "test", "p", "p_holm", "verdict")
MACHINE_FIELDS = CSV_FIELDS[:6]
"""A figure of the machine's fields: no test."""


def csv_header(col: Column) -> list[str]:
    """A value's fields: "best_test_acc[%].mean", ...; a figure of the machine's are
    named apart: "machine.wall_s[s].mean"."""
    unit = f"[{col.spec.unit}]" if col.spec.unit else ""
    if col.spec.machine:
        return [f"machine.{col.spec.name}{unit}.{field}" for field in MACHINE_FIELDS]
    return [f"{col.spec.name}{unit}.{field}" for field in CSV_FIELDS]


def to_csv(table: Table, targets: Sequence[float | None] = (), notes: TableNotes = NO_NOTES) -> str:
    """One row a group: its seeds, then per value mean, std, CI and how it was drawn
    (`ci`: the interval's kind, or "identical across seeds"), n (scaled to the
    catalogue's unit, full precision), and the test against the reference; the figures
    of the machine last, without tests; last, the group's warnings (`notes`)."""
    cols = columns(table, targets)
    return write_csv([csv_head(cols), *csv_rows(table, cols, notes)])


def write_csv(rows: list[list[object]]) -> str:
    """`rows` as CSV, each cell made safe for a spreadsheet (`cells.csv_cell`)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([map(safe.csv_cell, row) for row in rows])
    return buffer.getvalue()


def csv_head(cols: Sequence[Column]) -> list[object]:
    return [
        "group", "reference", "n", "seeds", *(h for c in ordered(cols) for h in csv_header(c)),
        "notes",
    ]  # fmt: skip


def csv_rows(
    table: Table, cols: Sequence[Column], notes: TableNotes = NO_NOTES
) -> list[list[object]]:
    tests = tests_of(table)
    out = []
    for row in table.rows:
        values: list[object] = [row.group, row.group == table.reference, row.n]
        values.append(" ".join(map(str, row.seeds)))
        for col in ordered(cols):
            stat, scale = row.stats[col.spec.name], col.spec.scale
            values += [_scaled(v, scale) for v in (stat.mean, stat.std, stat.ci_low, stat.ci_high)]
            values += [ci_kind(stat), stat.n]
            if not col.spec.machine:
                t = tests.get((row.group, col.spec.name))
                values += _test_fields(t) if t else ("", "", "", "")
        out.append([*values, " ".join(notes.rows.get(row.group, ()))])
    return out


def ci_kind(stat: Stat) -> str:
    """How a mean's interval was drawn ("logit t"), "identical across seeds", or ""."""
    return IDENTICAL if stat.identical else stat.interval or ""


def _scaled(x: float | None, scale: float) -> str:
    return "" if x is None else repr(x * scale)


def _test_fields(t: GroupTest) -> tuple[str, str, str, str]:
    p = "" if t.p_value is None else repr(t.p_value)
    p_holm = "" if t.p_adjusted is None else repr(t.p_adjusted)
    return t.test or f"none: {t.reason}", p, p_holm, t.verdict or ""


def table_json(
    table: Table,
    targets: Sequence[float | None] = (),
    notes: TableNotes = NO_NOTES,
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The table as JSON: every compared value (catalogue order) with its heading, which
    of them are figures of the machine (`machine`: shown apart, never tested), each
    group's statistics with their text in the one number format (`ci_note` where the
    values are identical across seeds), and the tests with their p-values as numbers and
    as text. `labels`: each group's name in the caption and the rows' `label` (the groups
    themselves keep their keys)."""
    specs = {c.name: c for c in table.columns}
    headings = {c.spec.name: c.title for c in columns(table, targets)}
    for spec in table.columns:
        headings.setdefault(spec.name, Column(spec, target_heading(spec, targets)).title)
    rows = []
    for row in table.rows:
        out: dict[str, Any] = {}
        for name, stat in row.stats.items():
            got = cell(stat, specs[name])
            text_ = None if got is None else got.text
            ci = None if got is None else got.interval_text
            note = IDENTICAL if stat.identical else None
            out[name] = {**asdict(stat), "text": text_, "ci_text": ci, "ci_note": note}
        label = (labels or {}).get(row.group, row.group)
        rows.append(
            {"group": row.group, "label": label, "n": row.n, "seeds": row.seeds, "stats": out}
        )
    tests = [
        {
            **asdict(t),
            "p_text": numbers.p_value(t.p_value),
            "p_adjusted_text": numbers.p_value(t.p_adjusted),
            "diff_text": difference(t, specs[t.metric]),
        }
        for t in table.tests
    ]
    return {
        "columns": [c.name for c in table.columns],
        "machine": [c.name for c in table.columns if c.machine],
        "headings": headings,
        "reference": table.reference,
        "alpha": table.alpha,
        "correction": "holm",
        "n_tests": table.n_tests,
        "caption": caption(labelled(table, labels or {}), targets, notes=notes),
        "rows": rows,
        "tests": tests,
    }


def labelled(table: Table, labels: Mapping[str, str]) -> Table:
    """The table with its groups named by `labels` (group → label; others as they are),
    as every file and caption shows them."""

    def name(group: str) -> str:
        return labels.get(group, group)

    return replace(
        table,
        reference=None if table.reference is None else name(table.reference),
        rows=[replace(r, group=name(r.group)) for r in table.rows],
        tests=[replace(t, group=name(t.group), reference=name(t.reference)) for t in table.tests],
    )
