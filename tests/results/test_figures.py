"""Figures for papers: valid files at a paper's widths whose text layer holds the axis
labels and the group names."""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np
import pytest
from pypdf import PdfReader

from worker.engine import metrics
from worker.results import figures
from worker.results.curves import RunCurve, group_curve

ROUNDS = np.arange(20)


def curves() -> list[RunCurve]:
    out = []
    for i, (group, level) in enumerate([("fedavg", 0.6), ("fedavg", 0.62), ("mifa", 0.7)] * 2):
        y = level * (1 - np.exp(-ROUNDS / 5)) + 0.01 * i
        out.append(RunCurve(i, f"run {i}", group, ROUNDS, y, ROUNDS * 0.1))
    return out


def compare_pdf(width: figures.Width = "column", band: figures.Band = "ci") -> bytes:
    runs = curves()
    spec = metrics.by_name()["test_acc"]
    groups = [group_curve(g, [r for r in runs if r.group == g], "round", 500, spec.domain)
              for g in ("fedavg", "mifa")]  # fmt: skip
    y = figures.Axis.of(spec, "test_acc")
    return figures.compare_figure(groups, y, "round", band=band, width=width, fmt="pdf")


@pytest.mark.parametrize(("width", "inches"), [("column", 3.5), ("full", 7.0)])
def test_compare_pdf_has_its_labels_as_text_at_a_paper_width(
    width: figures.Width, inches: float
) -> None:
    reader = PdfReader(io.BytesIO(compare_pdf(width)))

    (page,) = reader.pages
    assert float(page.mediabox.width) == pytest.approx(72 * inches)  # points
    text = page.extract_text()
    caption = "mean of n runs: fedavg 4, mifa 2; band: 95 % CI of the mean, clipped to [0, 100] %"
    for label in ("test accuracy (%)", "round", "fedavg", "mifa", caption):
        assert label in " ".join(text.split()), label
    assert "60" in text and "10" in text  # tick labels (percent, rounds)
    fonts = {f["/Subtype"] for f in _fonts(reader)}
    assert fonts and "/Type3" not in fonts  # embedded TrueType: a journal's checker accepts it


def _fonts(reader: PdfReader) -> list[Any]:
    resources: Any = reader.pages[0]["/Resources"]
    fonts = resources["/Font"]
    return [fonts[name].get_object() for name in fonts]


def test_the_same_figure_gives_the_same_bytes() -> None:
    assert compare_pdf() == compare_pdf()


def test_svg_and_png() -> None:
    runs = curves()
    groups = [group_curve("all", runs, "round", 500)]
    y = figures.Axis("parameter x")
    svg = figures.compare_figure(groups, y, "round", fmt="svg").decode()
    png = figures.compare_figure(groups, y, "round", fmt="png", width="full")

    assert svg.lstrip().startswith("<?xml") and "parameter x" in svg and "all" in svg
    assert "mean of n = 6 runs per group; band: ± std across runs" in svg  # x is unbounded
    assert png.startswith(b"\x89PNG")
    w, h = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert w == 7 * figures.DPI and h > 0


def test_run_figure_has_a_panel_per_entry() -> None:
    xs = list(range(10))
    panels: dict[str, dict[str, figures.Series]] = {
        "accuracy": {"test_acc": (xs, [0.1 * x for x in xs])},
        "loss": {"train_loss": (xs, [1 / (1 + x) for x in xs]), "test_loss": (xs, [None] * 10)},
    }
    axes = {"accuracy": figures.Axis("accuracy (%)", 100.0), "loss": figures.Axis("loss")}

    text = PdfReader(io.BytesIO(figures.run_figure(panels, axes, "round"))).pages[0].extract_text()

    for label in ("accuracy (%)", "loss", "train_loss", "test_acc"):
        assert label in text


@pytest.mark.parametrize(
    ("ys", "drawn"),
    [
        ([-1.7976931348623157e308, 1.7976931348623157e308], False),  # the span is inf
        ([0.0, 1.7976931348623157e308], False),  # the axis' margin passes the range
        ([0.0, 1e300], True),
        ([5e-324, 1e-323], True),
    ],
)
def test_values_past_what_an_axis_holds_are_refused_in_words(ys: list[float], drawn: bool) -> None:
    # Before: matplotlib's "arange: cannot compute length", a 500 of the figure routes.
    panels: dict[str, dict[str, figures.Series]] = {"loss": {"test_loss": ([0.0, 1.0], ys)}}
    axes = {"loss": figures.Axis("loss")}
    if drawn:
        assert figures.run_figure(panels, axes, "round", fmt="svg").startswith(b"<?xml")
        return
    with pytest.raises(figures.Unplottable, match=r"^loss: the values run from .* past what"):
        figures.run_figure(panels, axes, "round", fmt="svg")


def test_names_with_dollars_and_underscores_are_drawn_as_written() -> None:
    # Before: matplotlib read "$\frac{$" as mathtext and failed (a 500 of the figure routes)
    runs = curves()
    name = r"lr=$\frac{1}{2$ _x"
    groups = [group_curve(name, runs, "round", 500)]

    svg = figures.compare_figure(groups, figures.Axis("parameter x"), "round", fmt="svg").decode()

    assert r"lr=$\frac{1}{2$ _x" in svg


@pytest.mark.parametrize(
    ("ys", "drawn"),
    [
        ([0.0, 0.0], False),
        ([-1.0, 0.0], False),
        ([math.nan, math.nan], False),  # the fuzz's case: runs with no value of the metric
        ([0.0, 0.5], True),
        ([1e-3, 1.0], True),
    ],
)
def test_a_log_axis_with_nothing_above_zero_is_refused_in_words(
    ys: list[float], drawn: bool
) -> None:
    # Before: matplotlib's "Data cannot be log-scaled", a 500 of the figure routes (fuzz).
    panels: dict[str, dict[str, figures.Series]] = {"gap": {"opt_gap": ([0.0, 1.0], ys)}}
    axes = {"gap": figures.Axis("gap", log=True)}
    if drawn:
        assert figures.run_figure(panels, axes, "round", fmt="svg").startswith(b"<?xml")
        return
    with pytest.raises(figures.Unplottable, match=r"^gap: no value above 0"):
        figures.run_figure(panels, axes, "round", fmt="svg")


def test_a_log_comparison_of_runs_without_the_metric_is_refused_in_words() -> None:
    # The fuzz's 500: test accuracy on a log axis, of runs that never recorded it
    runs = [RunCurve(i, f"run {i}", "fedavg", ROUNDS, ROUNDS * np.nan, ROUNDS) for i in range(2)]
    spec = metrics.by_name()["test_acc"]
    groups = [group_curve("fedavg", runs, "round", 500, spec.domain)]
    y = figures.Axis.of(spec, "test_acc", log=True)
    with pytest.raises(figures.Unplottable, match=r"no value above 0"):
        figures.compare_figure(groups, y, "round", fmt="svg")
