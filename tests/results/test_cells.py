"""Names that attack a spreadsheet or a table: each export writes them as text, on one
line, without bidirectional controls (`worker.results.cells`), and keeps its own
numbers as numbers."""

from __future__ import annotations

import csv
import io

import pytest

from api.bundle import csv_text
from worker.results.cells import csv_cell, plain
from worker.results.stats import Sample, Table, compare
from worker.results.table import latex, markdown, text, to_csv, write_csv

PAYLOADS = [
    '=HYPERLINK("http://evil.example","x")',
    "+cmd",
    "-1+1",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
    "a\r=1+1",
    "x\n\\end{tabular}\\input{/etc/passwd}",
    "a\u202edcb",
    "\u2066b\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202dc",
]


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("a\r\nb\rc\nd\u2028e\u2029f\x85g\vh\fi", "a b c d e f g h i"),
        ("a\u202edcb", "adcb"),
        ("\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e", ""),
        ("fedavg (p=0.5)", "fedavg (p=0.5)"),
    ],
)
def test_plain_folds_line_breaks_and_drops_bidirectional_controls(given: str, shown: str) -> None:
    assert plain(given) == shown


@pytest.mark.parametrize(
    ("given", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+cmd", "'+cmd"),
        ("-1+1", "'-1+1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\r=1+1", "' =1+1"),  # the CR folds to a space, which a spreadsheet does not run
        ("-0.5", "-0.5"),  # the exporter's own numbers, written with repr, stay numbers
        ("-inf", "-inf"),
        ("+1e-3", "+1e-3"),
        ("a-b", "a-b"),
        (-0.5, -0.5),
        (3, 3),
        (True, True),
        (None, None),
    ],
)
def test_csv_cells_that_a_spreadsheet_would_run_are_quoted(given: object, written: object) -> None:
    assert csv_cell(given) == written


def hostile(name: str) -> Table:
    """A table of two groups, the second named `name`."""
    groups = {
        group: [Sample(s, {"best_test_acc": 0.5 + 0.1 * i + 0.01 * s}) for s in (0, 1, 2)]
        for i, group in enumerate(["ref", name])
    }
    return compare(groups, "ref", names=["best_test_acc"])


@pytest.mark.parametrize("name", PAYLOADS)
def test_a_hostile_name_is_one_text_cell_of_one_csv_row(name: str) -> None:
    rows = list(csv.reader(io.StringIO(to_csv(hostile(name)))))

    assert len(rows) == 3  # the heading and two groups: no row begun inside a name
    first = rows[2][0]
    assert first == csv_cell(name)
    assert not first.startswith(("=", "+", "-", "@", "\t", "\r"))
    assert "\r" not in first and "\n" not in first and "\u202e" not in first
    assert float(rows[2][4]) == pytest.approx(100 * (0.6 + 0.01))  # the mean stays a number


@pytest.mark.parametrize("name", PAYLOADS)
def test_a_hostile_name_stays_in_its_latex_row(name: str) -> None:
    tex = latex(hostile(name))
    body = tex.split("\\midrule\n")[1].split("\\bottomrule")[0].strip().splitlines()

    assert len(body) == 2 and all(line.endswith(r"\\") for line in body)
    assert tex.count(r"\end{tabular}") == 1 and r"\input" not in tex.replace(
        r"\textbackslash{}input", ""
    )
    assert not any(ch in tex for ch in "\r\u202e\u2066\u200e\u061c")


@pytest.mark.parametrize("name", PAYLOADS)
def test_a_hostile_name_stays_in_its_markdown_row(name: str) -> None:
    md = markdown(hostile(name))
    table_lines = md.split("\n\n")[0].split("\n")

    assert len(table_lines) == 4  # heading, rule, two groups
    assert table_lines[3].startswith("| " + plain(name).replace("|", "\\|") + " |")
    assert "\r" not in md and not any(ch in md for ch in "\u202e\u2066\u200e\u061c")


@pytest.mark.parametrize("name", PAYLOADS)
def test_a_hostile_name_is_one_line_of_the_text_table(name: str) -> None:
    shown = text(hostile(name)).split("\n\n")[0].split("\n")

    assert len(shown) == 3 and shown[2].startswith(plain(name).rstrip())
    assert not any(ch in "\n".join(shown) for ch in "\r\u202e\u2066\u200e\u061c")


def test_write_csv_quotes_the_cells_of_any_table() -> None:
    written = write_csv([["variant", "n"], ["=1+1", -2], ["-3.5", "a\nb"]])

    assert written == "variant,n\n'=1+1,-2\n-3.5,a b\n"


def test_the_run_bundle_s_csv_quotes_its_cells_too() -> None:
    heading = csv_text([["round", "-loss"]], None)  # a metric name may begin with "-"
    rows = csv_text([{"round": 0, "-loss": -0.25}, {"round": 1}], ["round", "-loss"])

    assert heading + rows == "round,'-loss\n0,-0.25\n1,\n"
