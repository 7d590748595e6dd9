"""Figures for papers, drawn with matplotlib: a comparison's curves (mean and band per
group), a run's curves, and a reproduction's curves against the authors' code.

Sizes are a paper's: a column (3.5 in wide) or the full text width (7 in); text is set
at 8 pt in a column and 9 pt at full width. The legend sits below the axes, outside the
data, in as many columns as the width holds; the notes (n, what the band is and how it
is kept inside the metric's domain) go in a caption line under it, never on the axes.
Each curve has its own colour from Okabe and Ito's palette, which colour-blind readers
tell apart, and its own line style and marker, which survive greyscale. Axes have ticks
and labels with the catalogue's unit. PDF and SVG keep their text as text (TrueType
fonts in the PDF, so its text layer holds the labels and a journal's checker finds no
Type 3 font); PNG is rendered at 300 dpi.

matplotlib's settings are process-wide, so one figure is drawn at a time (the API draws
in worker threads): each is built and saved inside `styled`.
"""

from __future__ import annotations

import io
import math
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from worker.engine import MetricSpec
from worker.results.choices import Choice
from worker.results.curves import UNBOUNDED, Domain, GroupCurve, RunCurve, clip_note

if TYPE_CHECKING:
    from matplotlib.figure import Figure, SubFigure

FigureFormat = Literal["pdf", "svg", "png"]
FIGURE_FORMATS: tuple[FigureFormat, ...] = ("pdf", "svg", "png")
MEDIA_TYPES = {"pdf": "application/pdf", "svg": "image/svg+xml", "png": "image/png"}
Width = Literal["column", "full"]
WIDTH_IN = {"column": 3.5, "full": 7.0}
HEIGHT_IN = {"column": 2.2, "full": 2.8}  # a row of axes with their labels
FONT_PT = {"column": 8.0, "full": 9.0}
Band = Literal["std", "ci", "none"]
BAND_LABELS = {"std": "± std across runs", "ci": "95 % CI of the mean", "none": ""}
BAND_CHOICES = (
    Choice("std", "band: ± std"),
    Choice("ci", "band: 95 % CI of the mean"),
    Choice("none", "no band"),
)
FIGURE_CHOICES = (Choice("pdf", "PDF"), Choice("svg", "SVG"), Choice("png", "PNG"))
# Okabe & Ito's colours, black first, without the yellow that a white page loses.
COLOURS = ("#000000", "#E69F00", "#0072B2", "#009E73", "#D55E00", "#56B4E9", "#CC79A7")
DASHES: tuple[Any, ...] = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v")
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
Draw = Callable[[Any], None]  # draws one panel into its axes

_drawing = threading.Lock()
MARGIN = 1.25  # room for matplotlib's margins and ticks beyond the data
PAD_IN = 0.04  # constrained layout's padding around the legend and the caption


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
    """What an axis shows: its label (with the unit), the factor for display, and the
    metric's domain and unit (for the band's note)."""

    label: str
    scale: float = 1.0
    log: bool = False
    domain: Domain = UNBOUNDED
    unit: str = ""

    @classmethod
    def of(cls, spec: MetricSpec | None, name: str, log: bool = False) -> Axis:
        if spec is None:
            return cls(name.replace("_", " "), 1.0, log)
        unit = f" ({spec.unit})" if spec.unit else ""
        return cls(spec.label + unit, spec.scale, log, spec.domain, spec.unit)


def line_style(i: int, points: int) -> dict[str, Any]:
    """The i-th curve's colour, line style and marker (7, 4 and 5 of them: no two of the
    first 140 curves share all three), for a curve of `points` points: a marker on every
    tenth of them, shifted per curve so that equal curves still show both."""
    step = max(1, points // 10)
    return {
        "color": COLOURS[i % len(COLOURS)],
        "ls": DASHES[i % len(DASHES)],
        "marker": MARKERS[i % len(MARKERS)],
        "markersize": 3.0,
        "markevery": ((i * step // len(MARKERS)) % step, step),
    }


def plain(text: str) -> str:
    """A user's string as matplotlib shows it literally: `$` starts no mathtext."""
    return text.replace("$", r"\$")


@contextmanager
def styled(width: Width) -> Iterator[None]:
    """matplotlib's settings for a figure of `width`, held alone while building and
    saving it."""
    import matplotlib

    settings: Any = {**STYLE, "font.size": FONT_PT[width], "legend.fontsize": FONT_PT[width]}
    with _drawing, matplotlib.rc_context(settings):
        yield


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
    """Each group's mean curve with its band (± std or the 95 % CI of the mean, both
    clipped to the metric's domain); `runs`: individual runs drawn thin (for groups of
    one run, or on request)."""
    with styled(width):
        fig = compare_plot(groups, y, x_label, band=band, width=width, runs=runs, x=x, title=title)
        return _save(fig, fmt, title)


def compare_plot(
    groups: Sequence[GroupCurve],
    y: Axis,
    x_label: str,
    *,
    band: Band = "std",
    width: Width = "column",
    runs: Sequence[RunCurve] = (),
    x: str = "round",
    title: str | None = None,
) -> Figure:
    """`compare_figure`'s figure, not yet saved (inside `styled(width)`)."""

    def draw(ax: Any) -> None:
        for i, g in enumerate(groups):
            style = line_style(i, len(g.x))
            ax.plot(g.x, [v * y.scale for v in g.mean], lw=1.2, label=plain(g.name), **style)
            low, high = _band(g, band)
            if low is not None and high is not None and len(g.run_ids) > 1:
                ax.fill_between(
                    g.x, [v * y.scale for v in low], [v * y.scale for v in high],
                    color=style["color"], alpha=0.18, lw=0,
                )  # fmt: skip
        names = [g.name for g in groups]
        for run in runs:
            colour = COLOURS[names.index(run.group) % len(COLOURS)] if run.group in names else "0.5"
            xs = run.rounds if x == "round" else run.wall_s
            ax.plot(xs, run.y * y.scale, color=colour, lw=0.5, alpha=0.5)

    return _figure([draw], [y], x_label, width, title, _compare_caption(groups, y, band, runs))


def _compare_caption(
    groups: Sequence[GroupCurve], y: Axis, band: Band, runs: Sequence[RunCurve]
) -> str:
    """The notes: how many runs each mean is over, the band and its clipping, and the
    groups whose runs are identical (no band to draw)."""
    sizes = [len(g.run_ids) for g in groups if g.run_ids]
    notes = []
    if sizes and len(set(sizes)) == 1:
        notes.append(f"mean of n = {sizes[0]} runs per group" if sizes[0] > 1 else "one run each")
    elif sizes:
        notes.append("mean of n runs: " + ", ".join(f"{g.name} {len(g.run_ids)}" for g in groups))
    several = [g for g in groups if len(g.run_ids) > 1]
    identical = [g.name for g in several if g.std and not any(g.std)]
    if band != "none" and len(identical) < len(several):
        clip = clip_note(y.domain, y.scale, y.unit)
        notes.append(f"band: {BAND_LABELS[band]}" + (f", {clip}" if clip else ""))
    if identical:
        notes.append("identical runs, no band: " + ", ".join(identical))
    if runs:
        notes.append("thin lines: each run")
    return "; ".join(notes)


def _band(g: GroupCurve, band: Band) -> tuple[list[float] | None, list[float] | None]:
    if band == "std":
        return g.std_low, g.std_high
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
    with styled(width):
        fig = run_plot(panels, axes, x_label, width=width, title=title, labels=labels)
        return _save(fig, fmt, title)


def run_plot(
    panels: Mapping[str, Mapping[str, Series]],
    axes: Mapping[str, Axis],
    x_label: str,
    *,
    width: Width = "full",
    title: str | None = None,
    labels: Mapping[str, str] | None = None,
) -> Figure:
    """`run_figure`'s figure, not yet saved (inside `styled(width)`): each metric keeps
    one style across the panels, and the legend names each once."""
    names = labels or {}
    order = {m: i for i, m in enumerate(dict.fromkeys(m for s in panels.values() for m in s))}

    def drawer(series: Mapping[str, Series], a: Axis) -> Draw:
        def draw(ax: Any) -> None:
            for metric, (xs, ys) in series.items():
                scaled = [float("nan") if v is None else v * a.scale for v in ys]
                label = plain(names.get(metric, metric))
                ax.plot(xs, scaled, lw=1.0, label=label, **line_style(order[metric], len(xs)))

        return draw

    draws = [drawer(series, axes[panel]) for panel, series in panels.items()]
    return _figure(draws, [axes[p] for p in panels], x_label, width, title)


def reproduction_figure(
    methods: Sequence[tuple[str, Curve, Curve | None]],
    title: str,
    *,
    width: Width = "full",
    fmt: FigureFormat = "svg",
) -> bytes:
    """One panel per method: FedWatch's mean accuracy and the official code's, in two
    styles, on a shared accuracy axis in percent."""
    y = Axis("test accuracy (%)", 100.0)

    def drawer(name: str, ours: Curve, theirs: Curve | None) -> Draw:
        def draw(ax: Any) -> None:
            ours_y = [v * 100 for v in ours[1]]
            ax.plot(ours[0], ours_y, lw=1.2, label="FedWatch", **line_style(0, len(ours_y)))
            if theirs is not None:
                ax.plot(
                    theirs[0], [v * 100 for v in theirs[1]], lw=1.2, label="official code",
                    **line_style(1, len(theirs[0])),
                )  # fmt: skip
            ax.set_title(plain(name), fontsize="medium")

        return draw

    with styled(width):
        draws = [drawer(*m) for m in methods]
        fig = _figure(draws, [y] * len(draws), "round", width, title, share_y=True)
        return _save(fig, fmt, title)


def _figure(
    draws: Sequence[Draw],
    ys: Sequence[Axis],
    x_label: str,
    width: Width,
    title: str | None,
    caption: str = "",
    *,
    share_y: bool = False,
) -> Figure:
    """The panels in rows, the legend below them (each label once) and the caption
    under the legend; the figure as tall as its rows, legend and caption need."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    n = max(1, len(draws))
    per_row = n if width == "full" and n <= 4 else min(n, 2)
    rows = -(-n // per_row)
    fig = Figure(figsize=(WIDTH_IN[width], HEIGHT_IN[width] * rows), layout="constrained")
    renderer = FigureCanvasAgg(fig).get_renderer()
    parts = fig.add_gridspec(2, 1) if caption else None  # the panels and legend; the caption
    body = fig.add_subfigure(parts[0]) if parts is not None else fig
    grid = body.subplots(rows, per_row, squeeze=False, sharey=share_y)
    flat = [ax for row in grid for ax in row]
    for ax, draw, y in zip(flat, draws, ys, strict=False):
        draw(ax)
        _check_plottable(ax, y.label)
        ax.set_xlabel(x_label)
        ax.set_ylabel(plain(y.label))
        if y.log:
            if not ax.dataLim.y1 > 0:  # nothing above 0 (or no finite value) drawn
                raise Unplottable(
                    f"{y.label}: no value above 0, which a log axis could show; draw it without log"
                )
            ax.set_yscale("log")
    for ax in flat[len(draws) :]:
        ax.set_visible(False)
    if title:
        body.suptitle(plain(title), fontsize="medium")
    legend_in = _legend(body, flat, renderer)
    plots_in = HEIGHT_IN[width] * rows
    caption_in = 0.0
    if parts is not None:
        caption_in = _caption(fig.add_subfigure(parts[1]), caption, renderer)
        parts.set_height_ratios([plots_in + legend_in, caption_in])
    fig.set_size_inches(WIDTH_IN[width], plots_in + legend_in + caption_in)
    return fig


def _legend(parent: Figure | SubFigure, axes: Sequence[Any], renderer: Any) -> float:
    """The panels' labels, each once, below the axes in as few rows as the figure's width
    allows, filled evenly (4 labels where 3 fit a row: 2 rows of 2); the inches it takes."""
    entries: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    if not entries:
        return 0.0
    room = parent.get_figure(root=True).get_figwidth() * renderer.dpi * 0.96
    n = len(entries)
    for fit in range(n, 0, -1):
        ncols = -(-n // -(-n // fit))  # the rows `fit` columns take, filled evenly
        legend = parent.legend(
            list(entries.values()), list(entries), loc="outside lower center", ncols=ncols,
            handlelength=2.6, columnspacing=1.2,
        )  # fmt: skip
        box = legend.get_window_extent(renderer)
        if box.width <= room or ncols == 1:
            return float(box.height) / renderer.dpi + 2 * PAD_IN
        legend.remove()
    return 0.0


def _caption(foot: SubFigure, text: str, renderer: Any) -> float:
    """`text` centred in `foot`, wrapped at the figure's width; the inches it takes."""
    import matplotlib
    from matplotlib.font_manager import FontProperties

    font = FontProperties(size=matplotlib.rcParams["font.size"])
    room = foot.get_figure(root=True).get_figwidth() * renderer.dpi * 0.96
    lines: list[str] = []
    for word in plain(text).split(" "):
        trial = f"{lines[-1]} {word}" if lines else word
        if lines and renderer.get_text_width_height_descent(trial, font, ismath=False)[0] <= room:
            lines[-1] = trial
        else:
            lines.append(word)
    foot.text(0.5, 0.5, "\n".join(lines), ha="center", va="center", fontproperties=font)
    return len(lines) * font.get_size_in_points() * 1.25 / 72 + 2 * PAD_IN


def _save(fig: Figure, fmt: FigureFormat, title: str | None) -> bytes:
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
