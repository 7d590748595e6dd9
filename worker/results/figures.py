"""Figures for papers, drawn with matplotlib: a comparison's curves (mean and band per
group), a run's curves, and a reproduction's curves against the authors' code.

Sizes are a paper's: a column (3.5 in wide) or the full text width (7 in). Axes have
ticks and labels with the catalogue's unit, and a legend. PDF and SVG keep their text
as text (TrueType fonts in the PDF, so its text layer holds the labels and a journal's
checker finds no Type 3 font); PNG is rendered at 300 dpi.

matplotlib's settings are process-wide, so one figure is drawn at a time (the API draws
in worker threads).
"""

from __future__ import annotations

import io
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from worker.engine.metrics import MetricSpec
from worker.results.curves import GroupCurve, RunCurve

FigureFormat = Literal["pdf", "svg", "png"]
FIGURE_FORMATS: tuple[FigureFormat, ...] = ("pdf", "svg", "png")
MEDIA_TYPES = {"pdf": "application/pdf", "svg": "image/svg+xml", "png": "image/png"}
Width = Literal["column", "full"]
WIDTH_IN = {"column": 3.5, "full": 7.0}
HEIGHT_IN = {"column": 2.6, "full": 3.2}
FONT_PT = {"column": 7.5, "full": 9.0}
Band = Literal["std", "ci", "none"]
BAND_LABELS = {"std": "± std", "ci": "95 % CI", "none": ""}
STYLE: dict[str, Any] = {
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "svg.fonttype": "none",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "svg.hashsalt": "fedwatch",
}
DPI = 300
Series = tuple[Sequence[float], Sequence[float | None]]  # x, y (None: not finite)
Curve = tuple[list[int], list[float]]  # rounds, accuracy

_drawing = threading.Lock()
MARGIN = 1.25  # room for matplotlib's margins and ticks beyond the data


class Unplottable(ValueError):
    """Values no axis can hold: the data, with an axis' margins, pass the float range."""


def _check_plottable(ax: Any, label: str) -> None:
    lim = ax.dataLim
    for low, high in ((lim.x0, lim.x1), (lim.y0, lim.y1)):
        if low > high:  # nothing drawn on it
            continue
        low, high = float(low), float(high)  # numpy's scalars warn where floats overflow
        if not all(math.isfinite(v * MARGIN) for v in (low, high, high - low)):
            raise Unplottable(
                f"{label}: the values run from {low:.3g} to {high:.3g}, past what an axis "
                "can hold; no figure is drawn (the CSV export holds them)"
            )


@dataclass(frozen=True)
class Axis:
    """What an axis shows: its label (with the unit) and the factor for display."""

    label: str
    scale: float = 1.0
    log: bool = False

    @classmethod
    def of(cls, spec: MetricSpec | None, name: str, log: bool = False) -> Axis:
        if spec is None:
            return cls(name.replace("_", " "), 1.0, log)
        unit = f" ({spec.unit})" if spec.unit else ""
        return cls(spec.label + unit, spec.scale, log)


def compare_figure(
    groups: Sequence[GroupCurve],
    y: Axis,
    x_label: str,
    *,
    band: Band = "std",
    width: Width = "column",
    fmt: FigureFormat = "pdf",
    runs: Sequence[RunCurve] = (),
    x: str = "round",
    title: str | None = None,
) -> bytes:
    """Each group's mean curve with its band (± std or the 95 % CI of the mean);
    `runs`: individual runs drawn thin (for groups of one run, or on request)."""

    def draw(ax: Any) -> None:
        for i, g in enumerate(groups):
            colour = f"C{i % 10}"
            ys = [v * y.scale for v in g.mean]
            label = g.name if len(g.run_ids) == 1 else f"{g.name} (n = {len(g.run_ids)})"
            ax.plot(g.x, ys, color=colour, lw=1.2, label=label)
            low, high = _band(g, band)
            if low is not None and high is not None and len(g.run_ids) > 1:
                ax.fill_between(
                    g.x, [v * y.scale for v in low], [v * y.scale for v in high],
                    color=colour, alpha=0.2, lw=0,
                )  # fmt: skip
        for run in runs:
            colour = f"C{[g.name for g in groups].index(run.group) % 10}" if groups else "C0"
            xs = run.rounds if x == "round" else run.wall_s
            ax.plot(xs, run.y * y.scale, color=colour, lw=0.5, alpha=0.5)
        if band != "none" and any(len(g.run_ids) > 1 for g in groups):
            ax.text(
                0.99, 0.01, f"band: {BAND_LABELS[band]}", transform=ax.transAxes,
                ha="right", va="bottom", fontsize="small", color="0.4",
            )  # fmt: skip

    return _figure([draw], [y], x_label, width, fmt, title, legend=True)


def _band(g: GroupCurve, band: Band) -> tuple[list[float] | None, list[float] | None]:
    if band == "std":
        return (
            [m - s for m, s in zip(g.mean, g.std, strict=True)],
            [m + s for m, s in zip(g.mean, g.std, strict=True)],
        )
    if band == "ci":
        return g.ci_low, g.ci_high
    return None, None


def run_figure(
    panels: Mapping[str, Mapping[str, Series]],
    axes: Mapping[str, Axis],
    x_label: str,
    *,
    width: Width = "full",
    fmt: FigureFormat = "pdf",
    title: str | None = None,
    labels: Mapping[str, str] | None = None,
) -> bytes:
    """One panel per entry of `panels` (its metrics' series as (x, y)), side by side;
    `axes[panel]` labels a panel's y axis, `labels` names the metrics in the legend."""
    names = labels or {}

    def drawer(series: Mapping[str, Series], a: Axis) -> Any:
        def draw(ax: Any) -> None:
            for metric, (xs, ys) in series.items():
                scaled = [float("nan") if v is None else v * a.scale for v in ys]
                ax.plot(xs, scaled, lw=1.0, label=names.get(metric, metric))

        return draw

    draws = [drawer(series, axes[panel]) for panel, series in panels.items()]
    return _figure(draws, [axes[p] for p in panels], x_label, width, fmt, title, legend=True)


def reproduction_figure(
    methods: Sequence[tuple[str, Curve, Curve | None]],
    title: str,
    *,
    width: Width = "full",
    fmt: FigureFormat = "svg",
) -> bytes:
    """One panel per method: FedWatch's mean accuracy (solid) and the official code's
    (dashed), on a shared accuracy axis in percent."""
    y = Axis("test accuracy (%)", 100.0)

    def drawer(name: str, ours: Curve, theirs: Curve | None) -> Any:
        def draw(ax: Any) -> None:
            ax.plot(ours[0], [v * 100 for v in ours[1]], color="C0", lw=1.2, label="FedWatch")
            if theirs is not None:
                ax.plot(
                    theirs[0], [v * 100 for v in theirs[1]], color="C3", lw=1.2, ls="--",
                    label="official code",
                )  # fmt: skip
            ax.set_title(name, fontsize="medium")

        return draw

    draws = [drawer(*m) for m in methods]
    return _figure(draws, [y] * len(draws), "round", width, fmt, title, legend=True, share_y=True)


def _figure(
    draws: Sequence[Any],
    ys: Sequence[Axis],
    x_label: str,
    width: Width,
    fmt: FigureFormat,
    title: str | None,
    *,
    legend: bool,
    share_y: bool = False,
) -> bytes:
    import matplotlib
    from matplotlib.figure import Figure

    n = max(1, len(draws))
    per_row = n if width == "full" and n <= 4 else min(n, 2)
    rows = -(-n // per_row)
    settings: Any = {**STYLE, "font.size": FONT_PT[width]}
    with _drawing, matplotlib.rc_context(settings):
        fig = Figure(
            figsize=(WIDTH_IN[width], HEIGHT_IN[width] * (rows if per_row < n else 1)),
            layout="constrained",
        )
        grid = fig.subplots(rows, per_row, squeeze=False, sharey=share_y)
        flat = [ax for row in grid for ax in row]
        for ax, draw, y in zip(flat, draws, ys, strict=False):
            draw(ax)
            _check_plottable(ax, y.label)
            ax.set_xlabel(x_label)
            ax.set_ylabel(y.label)
            if y.log:
                ax.set_yscale("log")
            if legend and ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize="small")
        for ax in flat[len(draws) :]:
            ax.set_visible(False)
        if title:
            fig.suptitle(title, fontsize="medium")
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, dpi=DPI, metadata=_metadata(fmt, title))
    return buffer.getvalue()


def _metadata(fmt: FigureFormat, title: str | None) -> dict[str, Any]:
    """No creation date: the same figure gives the same bytes."""
    if fmt == "pdf":
        return {"Title": title or "", "Creator": "FedWatch", "CreationDate": None}
    if fmt == "svg":
        return {"Title": title or "", "Date": None}
    return {"Software": "FedWatch"}
