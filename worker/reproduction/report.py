"""The reproduction report of a preset: for each method of its comparison set,
FedWatch's figures over its runs, the authors' code's over the reference runs (where
bundled), the published ones (where the preset declares them), the differences with
Welch's p-values, and both mean curves.

The same report comes out of `fedwatch reproduce` (Markdown, SVG) and
`GET /api/experiments/{id}/reproduction` (JSON).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from worker.engine import UNIT_INTERVAL
from worker.presets import Method, Preset
from worker.reproduction.figures import FIGURES, LABELS, Curve, figures, mean_curve, rmse
from worker.reproduction.references import Reference, reference
from worker.results import numbers
from worker.results.figures import FigureFormat, reproduction_figure
from worker.results.stats import Stat, WelchTest, mean_std, welch_test

DEFINITION = (
    "Figures of each run's accuracy curve at the rounds it evaluated, the initial model's "
    "included (round 0): max, time-average = the mean of those points, std 2nd half = the "
    "population std of the points at round ≥ rounds/2; mean ± sample std over the seeds. "
    "Δ = FedWatch − official, with Welch's two-sided p-value."
)


@dataclass(frozen=True)
class MethodRow:
    algorithm: str
    settings: dict[str, Any]
    fedwatch: dict[str, Stat]
    official: dict[str, Stat] | None
    published: dict[str, float]
    tests: dict[str, WelchTest]
    curve_rmse: float | None  # of the mean curves, as a fraction
    curve: tuple[list[int], list[float]]
    official_curve: tuple[list[int], list[float]] | None
    seeds: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Report:
    preset: str
    paper: str
    rounds: int
    definition: str
    source: str | None
    rows: list[MethodRow]
    runs_done: int
    runs_total: int
    draws: str = "own"  # "official": each run replayed its reference run's availability

    def to_json(self) -> dict[str, Any]:
        """The report, each row with its figures as every table writes them (`text`:
        figure -> fedwatch, official, delta; `rmse_text`: the curves' RMSE in pp)."""
        out = asdict(self)
        for row, raw in zip(self.rows, out["rows"], strict=True):
            raw["rmse_text"] = numbers.value(row.curve_rmse, 100.0)
            raw["text"] = {
                f: {
                    "fedwatch": percent(row.fedwatch[f]),
                    "official": percent(row.official[f] if row.official else None),
                    "delta": delta(row.tests[f]),
                }
                for f in FIGURES
            }
        return out

    def figure(self, fmt: FigureFormat) -> bytes:
        """The mean curves, one panel per method, FedWatch against the official code."""
        methods = [(r.algorithm, r.curve, r.official_curve) for r in self.rows]
        title = f"{self.preset}: FedWatch (solid) and the official code (dashed)"
        return reproduction_figure(methods, title, fmt=fmt)


def build(
    preset: Preset,
    curves: Mapping[str, Sequence[Curve]],
    runs_total: int | None = None,
    draws: str = "own",
    rounds: int | None = None,
) -> Report:
    """The report of `preset` from FedWatch's curves per algorithm (finished runs);
    `draws`: FedWatch's own availability draws, or the official runs' replayed;
    `rounds`: the runs' length where a `--set rounds=…` changed the preset's."""
    rounds = rounds or preset.run_config().rounds
    ref = reference(preset.name)
    rows = [_row(preset, m, list(curves.get(m.name, [])), rounds, ref)
            for m in preset.compare]  # fmt: skip
    done = sum(len(c) for c in curves.values())
    return Report(
        preset.name,
        preset.paper,
        rounds,
        DEFINITION,
        ref.source if ref else None,
        rows,
        done,
        done if runs_total is None else runs_total,
        draws,
    )


def _row(
    preset: Preset, method: Method, runs: list[Curve], rounds: int, ref: Reference | None
) -> MethodRow:
    algorithm = method.algorithm
    ours = [figures(c, rounds) for c in runs]
    official_curves = ref.curves(algorithm) if ref else []
    theirs = [figures(c, rounds) for c in official_curves]
    curve = mean_curve(runs)
    official_curve = mean_curve(official_curves) if official_curves else None
    return MethodRow(
        method.name,
        method.set,
        {f: mean_std([x[f] for x in ours], UNIT_INTERVAL) for f in FIGURES},
        {f: mean_std([x[f] for x in theirs], UNIT_INTERVAL) for f in FIGURES} if theirs else None,
        preset.published.get(algorithm, {}),
        {f: welch_test([x[f] for x in ours], [x[f] for x in theirs]) for f in FIGURES},
        rmse(curve, official_curve) if official_curve and curve[0] else None,
        curve,
        official_curve,
        [c.seed for c in runs],
    )


def shared(row: MethodRow) -> list[int]:
    """The rounds both mean curves of `row` have (where its RMSE is taken)."""
    theirs = set(row.official_curve[0]) if row.official_curve else set()
    return [r for r in row.curve[0] if r in theirs]


def percent(stat: Stat | None) -> str:
    """ "71.79 ± 0.42 (n=3)": a figure in percent, in the one number format."""
    cell = None if stat is None else numbers.mean_std(stat.mean, stat.std, 100.0)
    return "–" if cell is None or stat is None else f"{cell.text} (n={stat.n})"


def delta(test: WelchTest) -> str:
    """ "+0.41 (p = 0.53)": FedWatch − official in percentage points, Welch's p."""
    if test.mean_diff is None:
        return "–"
    p = "" if test.p_value is None else f" ({numbers.p_value(test.p_value)})"
    return f"{numbers.signed(test.mean_diff, 100.0)}{p}"


def markdown(report: Report, plot: str | None = None) -> str:
    """The report as Markdown; `plot` names an image of the curves to link."""
    lines = [f"# Reproduction: {report.preset}", ""]
    if report.paper:
        lines += [f"Paper: {report.paper}", ""]
    lines += [
        f"{report.runs_done} of {report.runs_total} runs, {report.rounds} rounds each. "
        + report.definition,
        "",
    ]
    if report.source:
        lines += [f"Official runs: {report.source}", ""]
    lines += [
        "Availability: "
        + (
            "each FedWatch run replayed the draws of the official run of the same method "
            "and seed (run for run)."
            if report.draws == "official"
            else "FedWatch's own draws of the same availability model (statistically, not "
            "run for run, comparable)."
        ),
        "",
    ]
    for figure in FIGURES:
        lines += [
            f"## {LABELS[figure]} (%)",
            "",
            "| method | settings | FedWatch | official code | Δ (p) | published |",
            "|---|---|---|---|---|---|",
        ]
        for row in report.rows:
            settings = ", ".join(f"{k}={v}" for k, v in row.settings.items()) or "–"
            published = row.published.get(figure)
            lines.append(
                f"| {row.algorithm} | {settings} | {percent(row.fedwatch[figure])} | "
                f"{percent(row.official[figure] if row.official else None)} | "
                f"{delta(row.tests[figure])} | {numbers.value(published)} |"
            )
        lines.append("")
    rmses = [r for r in report.rows if r.curve_rmse is not None]
    if rmses:
        lines += ["## Mean curves", ""]
        lines += [
            f"- {r.algorithm}: RMSE {numbers.value(r.curve_rmse, 100.0)} pp between FedWatch's "
            f"and the official mean curve over {len(shared(r))} shared rounds"
            for r in rmses
        ]
        lines.append("")
    if plot:
        lines += [f"![mean accuracy curves, FedWatch and the official code]({plot})", ""]
    return "\n".join(lines)
