"""Figures ready for print, measured on the drawn figure: the legend and the notes cover
no point of a data line, no tick or axis label and no axes' data area; text is set at
8–9 pt; each curve has its own line style and marker as well as its colour, one of
Okabe and Ito's. Every kind of figure is drawn as its caller draws it (the compare
figure, the run figure, the `fedwatch plot` command, the reproduction figure), at a
column's width and at full width, with many groups and a band. The figures are taken as
they are saved."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib.colors import to_hex

from fedwatch.command import main
from worker.engine import metrics
from worker.results import figures
from worker.results.curves import RunCurve, group_curve

ROUNDS = np.arange(80)
OKABE_ITO = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}
"""Okabe and Ito's palette (Color Universal Design, 2008), which readers with a colour
vision deficiency tell apart."""
METHODS = ("FedAvg", "FedLaAvg", "MIFA", "FedBuff", "FedAsync", "SCAFFOLD", "FedProx", "CA-Fed")


@dataclass(frozen=True)
class Overlaps:
    """What the legends and notes of a figure cover."""

    points: int  # points of the data lines under a legend or a note
    labels: int  # tick and axis labels a legend or a note touches
    data_areas: int  # (legend or note, axes) pairs where it lies on the axes' data area
    off_page: int  # legends and notes reaching past the figure's edge

    def total(self) -> int:
        return self.points + self.labels + self.data_areas + self.off_page


def texts_and_legends(fig: Any) -> tuple[list[Any], list[Any]]:
    """The notes (free text: the figure's, its subfigures' and the axes', titles aside)
    and the legends."""
    notes, legends = [], []
    for part in [fig, *fig.subfigs]:
        title = part.get_suptitle()
        notes += [t for t in part.texts if t.get_visible() and t.get_text() not in ("", title)]
        legends += part.legends
    for ax in fig.get_axes():
        notes += [t for t in ax.texts if t.get_visible() and t.get_text()]
        if ax.get_legend() is not None:
            legends.append(ax.get_legend())
    return notes, legends


def measure(fig: Any) -> Overlaps:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    notes, legends = texts_and_legends(fig)
    boxes = [a.get_window_extent(renderer) for a in [*notes, *legends]]
    axes = [ax for ax in fig.get_axes() if ax.get_visible()]
    points = np.concatenate(
        [np.zeros((0, 2))]
        + [
            line.get_transform().transform(line.get_xydata())
            for ax in axes
            for line in ax.get_lines()
            if line.get_visible()
        ]
    )
    points = points[np.isfinite(points).all(axis=1)]
    labels = [
        t.get_window_extent(renderer)
        for ax in axes
        for t in [*tick_labels(ax.xaxis), *tick_labels(ax.yaxis), ax.xaxis.label, ax.yaxis.label]
        if t.get_visible() and t.get_text()
    ]
    page = fig.bbox
    return Overlaps(
        points=sum(int(inside(box, points).sum()) for box in boxes),
        labels=sum(box.overlaps(label) for box in boxes for label in labels),
        data_areas=sum(box.overlaps(a.get_window_extent(renderer)) for box in boxes for a in axes),
        off_page=sum(
            not (page.x0 <= b.x0 and b.x1 <= page.x1 and page.y0 <= b.y0 and b.y1 <= page.y1)
            for b in boxes
        ),
    )


def tick_labels(axis: Any) -> list[Any]:
    """The tick labels drawn: those of the ticks within the axis' view."""
    low, high = sorted(axis.get_view_interval())
    ticks = [*axis.get_major_ticks(), *axis.get_minor_ticks()]
    return [t.label1 for t in ticks if low <= t.get_loc() <= high]


def inside(box: Any, points: np.ndarray) -> np.ndarray:
    x, y = points[:, 0], points[:, 1]
    return (box.x0 <= x) & (x <= box.x1) & (box.y0 <= y) & (y <= box.y1)


@dataclass
class Drawn:
    """A figure as saved, and what was measured on it then (inside its style)."""

    overlaps: Overlaps
    font_sizes: set[float]
    styles: list[tuple[Any, Any, Any]]  # each legend entry's colour, line style, marker
    notes: list[str]


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Drawn]:
    """Every figure saved during the test, measured as it is saved."""
    return measured_saves(monkeypatch)


def measured_saves(monkeypatch: pytest.MonkeyPatch) -> list[Drawn]:
    """The list every figure saved from now on is measured into, as it is saved (in its
    style, before it is written)."""
    from matplotlib.text import Text

    out: list[Drawn] = []
    save = figures._save

    def measured(fig: Any, fmt: figures.FigureFormat, title: str | None) -> bytes:
        overlaps = measure(fig)
        notes, legends = texts_and_legends(fig)
        texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text()]
        handles = [h for leg in legends for h in leg.legend_handles]
        out.append(
            Drawn(
                overlaps,
                {t.get_fontsize() for t in texts},
                [(h.get_color(), h.get_linestyle(), h.get_marker()) for h in handles],
                [t.get_text().replace("\n", " ") for t in notes],
            )
        )
        return save(fig, fmt, title)

    monkeypatch.setattr(figures, "_save", measured)
    return out


def runs(n_groups: int, seeds: int = 3) -> list[RunCurve]:
    """Accuracy curves rising to 60–95 %, noisy across seeds, the first group touching 100 %."""
    out: list[RunCurve] = []
    for g in range(n_groups):
        for s in range(seeds):
            level = 0.6 + 0.045 * g
            y = level * (1 - np.exp(-ROUNDS / 8)) + 0.03 * np.sin(ROUNDS / 3 + s + g)
            if g == 0:
                y = y + 0.2 * (s - 1)
            y = np.clip(y, 0, 1)
            out.append(RunCurve(len(out), f"run {len(out)}", METHODS[g], ROUNDS, y, ROUNDS * 0.1))
    return out


def compare(n_groups: int, width: figures.Width, band: figures.Band) -> bytes:
    spec = metrics.by_name()["test_acc"]
    data = runs(n_groups)
    groups = [
        group_curve(m, [r for r in data if r.group == m], "round", 500, spec.domain)
        for m in METHODS[:n_groups]
    ]
    y = figures.Axis.of(spec, "test_acc")
    return figures.compare_figure(groups, y, "round", band=band, width=width, fmt="pdf")


def example1(width: figures.Width) -> bytes:
    """Example 1's x as its compare figure draws it: FedAvg swinging between the two
    clients' means across the axes, FedLaAvg and MIFA settling at 0; its seeds are
    identical (a deterministic run), so the band has no width."""
    rounds = np.arange(400)
    target = np.where(rounds % 40 < 30, 1.0, -1.0)
    x = {name: np.zeros(len(rounds)) for name in ("FedAvg", "FedLaAvg", "MIFA")}
    for t in rounds[1:]:
        x["FedAvg"][t] = x["FedAvg"][t - 1] + 0.08 * (target[t - 1] - x["FedAvg"][t - 1])
        for name, rate in (("FedLaAvg", 0.02), ("MIFA", 0.03)):
            x[name][t] = x[name][t - 1] + rate * (0.5 * target[t - 1] - 3 * x[name][t - 1])
    data = [RunCurve(3 * g + s, f"run {3 * g + s}", name, rounds, ys, rounds * 0.01)
            for g, (name, ys) in enumerate(x.items()) for s in range(3)]  # fmt: skip
    groups = [group_curve(name, [r for r in data if r.group == name], "round", 500) for name in x]
    y = figures.Axis.of(metrics.by_name()["param"], "param")
    return figures.compare_figure(groups, y, "round", band="std", width=width, fmt="pdf")


def run_figure(width: figures.Width) -> bytes:
    """A run's figure as the run route draws Example 1's: x and its gap (log) per round."""
    specs = metrics.by_name()
    x = 0.5 + 0.5 * np.sin(2 * np.pi * ROUNDS / 40) * np.exp(-ROUNDS / 60)
    panels: dict[str, dict[str, figures.Series]] = {
        "param": {"param": (ROUNDS.tolist(), x.tolist())},
        "gap": {"opt_gap": (ROUNDS.tolist(), (x**2 + 1e-6).tolist())},
        "loss": {
            "train_loss": (ROUNDS.tolist(), (1 / (1 + ROUNDS)).tolist()),
            "test_loss": (ROUNDS.tolist(), (1.1 / (1 + ROUNDS)).tolist()),
        },
    }
    axes = {
        "param": figures.Axis.of(specs["param"], "param"),
        "gap": figures.Axis.of(specs["opt_gap"], "opt_gap", log=True),
        "loss": figures.Axis("loss"),
    }
    labels = {"param": "x", "opt_gap": "(x − x*)²", "train_loss": "train", "test_loss": "test"}
    return figures.run_figure(
        panels, axes, "round", width=width, title="#7 example1 · fedavg", labels=labels
    )


def plot_command(directory: Path, width: figures.Width) -> bytes:
    """`fedwatch plot` on a `fedwatch compare` directory of 6 methods × 3 seeds."""
    for run in runs(6):
        seed = run.id % 3
        rounds = [{"round": int(t), "test_acc": float(v), "wall_s": 0.1 * int(t)}
                  for t, v in zip(run.rounds, run.y, strict=True)]  # fmt: skip
        record = {"variant": "", "algorithm": run.group, "config": {}, "rounds": rounds}
        (directory / f"{run.group}-seed{seed}.json").write_text(json.dumps(record))
    out = directory / f"curves-{width}.pdf"
    assert main(["plot", str(directory), "--band", "std", "--width", width, "--out", str(out)]) == 0
    return out.read_bytes()


def reproduction(width: figures.Width) -> bytes:
    curve = (ROUNDS.tolist(), (0.9 * (1 - np.exp(-ROUNDS / 10))).tolist())
    theirs = (ROUNDS.tolist(), (0.88 * (1 - np.exp(-ROUNDS / 11))).tolist())
    methods = [(m, curve, theirs) for m in METHODS[:3]]
    return figures.reproduction_figure(methods, "cafed-synthetic", width=width, fmt="pdf")


KINDS: dict[str, Callable[[Path, figures.Width], bytes]] = {
    "compare, 2 groups, CI": lambda _, w: compare(2, w, "ci"),
    "compare, 8 groups, std": lambda _, w: compare(8, w, "std"),
    "compare, Example 1's x": lambda _, w: example1(w),
    "run": lambda _, w: run_figure(w),
    "plot command, 6 groups": plot_command,
    "reproduction": lambda _, w: reproduction(w),
}


@pytest.mark.parametrize("width", ["column", "full"])
@pytest.mark.parametrize("kind", KINDS)
def test_legend_and_notes_cover_no_data_and_no_labels(
    kind: str, width: figures.Width, drawn: list[Drawn], tmp_path: Path
) -> None:
    KINDS[kind](tmp_path, width)

    (figure,) = drawn
    assert figure.overlaps == Overlaps(0, 0, 0, 0)
    assert figure.font_sizes <= {8.0, 9.0}, figure.font_sizes
    assert len(set(figure.styles)) == len(figure.styles)  # colour, dashes and marker differ
    assert len({(ls, marker) for _, ls, marker in figure.styles}) == len(figure.styles)
    assert {to_hex(colour).upper() for colour, _, _ in figure.styles} <= OKABE_ITO


def test_notes_say_n_and_the_band_and_how_it_is_clipped(drawn: list[Drawn]) -> None:
    compare(2, "column", "ci")
    compare(8, "full", "std")
    example1("column")

    assert [d.notes for d in drawn] == [
        ["mean of n = 3 runs per group; band: 95 % CI of the mean, clipped to [0, 100] %"],
        ["mean of n = 3 runs per group; band: ± std across runs, clipped to [0, 100] %"],
        ["mean of n = 3 runs per group; identical runs, no band: FedAvg, FedLaAvg, MIFA"],
    ]


def test_measure_finds_a_legend_on_the_data_and_a_note_on_a_tick_label() -> None:
    # The check itself, on a figure drawn as before: the legend inside the axes over
    # the lines, the band's note in the axes' corner over the x axis' last tick label.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3.5, 2.6))
    ax = fig.subplots()
    for i in range(8):
        ax.plot(ROUNDS, np.full(len(ROUNDS), float(i)), label=f"group {i}")
    ax.legend(loc="center")
    ax.text(1.0, -0.08, "band: 95 % CI", transform=ax.transAxes, ha="right", va="top")

    found = measure(fig)

    assert found.points > 0 and found.labels > 0 and found.data_areas == 1
