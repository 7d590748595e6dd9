"""The manual's Example 1 comparison (docs/results.md): the LaTeX table and the PDF figure
that `docs/example1_export.py` exports by the README's steps 2 and 3 and its snippet, as
the manual shows them. The table names groups as a paper does (no dotted key), every
value lies in its catalogue domain, the figures of the machine stand apart and unbolded,
and the deterministic case is said in words; the figure's legend and caption likewise.
The slow test exports them again, by the same steps against a fresh server, and finds
the manual's copies are what the code exports now (the machine's cells aside)."""

from __future__ import annotations

import importlib.util
import io
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from pypdf import PdfReader

from worker.engine import MetricSpec, metrics
from worker.results import figures
from worker.results.curves import RunCurve, group_curve
from worker.results.table import Column, latex_escape

DOCS = Path(__file__).resolve().parents[2] / "docs"
TABLE = DOCS / "figures" / "example1-table.tex"
FIGURE = DOCS / "figures" / "example1-curves.pdf"
DOTTED = re.compile(r"\b[a-z_]+\.[a-z_]+\b")  # algorithm.name, data.dirichlet.alpha
DETERMINISTIC = (
    "FedAvg and FedLaAvg are identical across their 3 seeds (deterministic): no test; "
    "the difference (FedAvg $-$ FedLaAvg) is the constant "
)


def titles() -> dict[str, MetricSpec]:
    """Each compared value by its LaTeX heading."""
    return {latex_escape(Column(s, s.heading).title): s for s in metrics.compared()}


def parts(tex: str) -> tuple[str, list[MetricSpec], list[list[str]]]:
    """The caption, the columns' values and the rows' cells (the method's name first)."""
    caption = tex.split(r"\caption{", 1)[1].split("}\n", 1)[0]
    head = next(line for line in tex.splitlines() if line.startswith("Method & "))
    known = titles()
    specs = [known[t] for t in head.removesuffix(r" \\").split(" & ")[1:]]
    body = tex.split("\\midrule\n")[1].split("\\bottomrule")[0].strip().splitlines()
    return caption, specs, [line.removesuffix(r" \\").split(" & ") for line in body]


def mean_of(cell: str) -> float:
    """The mean a LaTeX cell shows, in the stored unit's display scale: "$0.3400$",
    "$\\mathbf{1.896 \\times 10^{-17}}$", "$15.98 \\pm 0.58$"."""
    text = re.sub(r"\\mathbf\{(.*)\}", r"\1", cell.strip("$")).split(r"\pm")[0]
    mantissa, _, power = text.partition(r"\times 10^")
    return float(mantissa) * 10 ** int(power.strip("{} ") or 0)


def check_table(tex: str) -> None:
    caption, specs, rows = parts(tex)  # a heading the catalogue does not know: KeyError
    assert not DOTTED.search(tex) and "algorithm" not in tex
    assert [r[0] for r in rows] == ["FedAvg", "FedLaAvg (reference)"]
    assert DETERMINISTIC in caption and r"\dagger" not in tex and "Holm" not in caption
    assert "Reference: FedLaAvg (the preset's proposed method)." in caption
    assert r"seed 0 ran 2 times: kept the newest run, \#2; dropped \#1." in caption
    machine = [s.machine for s in specs]
    assert machine == sorted(machine) and any(machine)  # the machine's last
    assert r"\multicolumn{2}{c}{machine (not compared)}" in tex
    for row in rows:
        for spec, cell in zip(specs, row[1:], strict=True):
            lo, hi = spec.domain
            value = mean_of(cell) / spec.scale
            assert (lo is None or value >= lo) and (hi is None or value <= hi), (spec.name, cell)
            assert not (spec.machine and r"\mathbf" in cell), (spec.name, cell)


def check_figure(pdf: bytes) -> None:
    layer = " ".join(PdfReader(io.BytesIO(pdf)).pages[0].extract_text().split())
    for said in ("parameter x", "round", "FedAvg", "FedLaAvg", "identical runs, no band"):
        assert said in layer, said
    assert not DOTTED.search(layer) and "algorithm" not in layer


def test_the_manual_shows_the_exported_table_and_figure() -> None:
    manual = (DOCS / "results.md").read_text()
    tex = TABLE.read_text()

    assert f"```latex\n{tex}```" in manual
    assert "(figures/example1-curves.png)" in manual and "(figures/example1-curves.pdf)" in manual
    assert "Example 1 is deterministic: its 3 seeds\ngive bit-identical runs, so no test runs" in (
        manual
    )
    check_table(tex)
    check_figure(FIGURE.read_bytes())


def bold_machine(tex: str) -> str:
    """The first row's last cell (updates/s) in bold, as "best"."""
    lines = tex.splitlines(keepends=True)
    i = next(i for i, line in enumerate(lines) if line.startswith("FedAvg &"))
    *cells, last = lines[i].removesuffix(" \\\\\n").split(" & ")
    lines[i] = " & ".join([*cells, f"$\\mathbf{{{last.strip('$')}}}$"]) + " \\\\\n"
    return "".join(lines)


@pytest.mark.parametrize(
    "broken",
    [
        lambda t: t.replace("FedAvg &", "algorithm.name=fedavg &", 1),  # a dotted key
        lambda t: t.replace("$0.2500$", "$1.2500$", 1),  # a TV past 1
        bold_machine,  # updates/s bolded as best
        lambda t: t.replace("no test; ", "better; ", 1),  # the deterministic case unsaid
    ],
)
def test_the_check_finds_what_the_issue_found(broken: Callable[[str], str]) -> None:
    tex = TABLE.read_text()
    check_table(tex)

    with pytest.raises((AssertionError, KeyError)):
        check_table(broken(tex))


def test_the_figure_check_finds_a_legend_of_config_keys() -> None:
    # Before: "algorithm.name=fedavg (n = 3)" in the legend
    rounds = np.arange(40)
    x = np.where(rounds % 40 < 30, 0.5, -0.5)
    data = [RunCurve(i, f"run {i}", "algorithm.name=fedavg", rounds, x, rounds * 0.1)
            for i in range(3)]  # fmt: skip
    group = group_curve("algorithm.name=fedavg", data, "round", 500)
    axis = figures.Axis.of(metrics.by_name()["param"], "param")
    pdf = figures.compare_figure([group], axis, "round", band="ci", width="column", fmt="pdf")

    with pytest.raises(AssertionError):
        check_figure(pdf)


@pytest.mark.slow
def test_the_readme_steps_export_the_manual_s_table_and_figure(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("example1_export", DOCS / "example1_export.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    script.export(tmp_path)

    tex = (tmp_path / "example1-table.tex").read_text()
    check_table(tex)
    check_figure((tmp_path / "example1-curves.pdf").read_bytes())
    assert same_table(tex, TABLE.read_text())
    drawn, shown = ((p / "example1-curves.pdf").read_bytes() for p in (tmp_path, FIGURE.parent))
    assert PdfReader(io.BytesIO(drawn)).pages[0].extract_text() == (
        PdfReader(io.BytesIO(shown)).pages[0].extract_text()
    )


def same_table(tex: str, shown: str) -> bool:
    """The same table but for the figures of the machine (wall time, updates/s: the
    load's), its means equal up to float noise (1e-6 in the shown unit: FedLaAvg's x ends
    within 1e-8 of 0, its last digits the order of a sum's)."""
    (caption, specs, rows), (caption_, specs_, rows_) = parts(tex), parts(shown)
    if (caption, specs, [r[0] for r in rows]) != (caption_, specs_, [r[0] for r in rows_]):
        return False
    return all(
        spec.machine or mean_of(a) == pytest.approx(mean_of(b), abs=1e-6)
        for row, row_ in zip(rows, rows_, strict=True)
        for spec, a, b in zip(specs, row[1:], row_[1:], strict=True)
    )
