"""What every export does to the text of a cell (a group, run, variant or metric name,
a caption) before it writes it: the one function each writer calls.

- `plain`: one line, read in its own order. Line breaks (CR, LF, CRLF, VT, FF, NEL,
  U+2028, U+2029) fold to one space each, so that a name cannot end a Markdown row or
  a LaTeX line and put text of its own (`\\end{tabular}`) after it, nor start a CSV row;
  bidirectional controls (U+200E, U+200F, U+061C, U+202A–U+202E, U+2066–U+2069) are
  removed, so that a name cannot show its text reversed (U+202E) in a table.
- `csv_cell`: `plain`, and the OWASP defence against formula injection: a text cell
  that begins with `=`, `+`, `-`, `@`, a tab or a CR, after any spaces (which some
  spreadsheets trim), gets a single quote in front, so a spreadsheet shows it as text
  instead of running it. A cell that is a number stays as
  it is: an int or a float, and a text that parses as one (`-0.5`, `-inf`, as the
  exporter writes its own values with `repr`), which no spreadsheet runs as a formula.
  `-1+1` is not a number, so it is quoted.
"""

from __future__ import annotations

import re

LINE_BREAKS = re.compile("\r\n|[\r\n\v\f\x85\u2028\u2029]")
BIDI_CONTROLS = re.compile("[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def plain(text: str) -> str:
    """`text` on one line, without bidirectional controls."""
    return BIDI_CONTROLS.sub("", LINE_BREAKS.sub(" ", text))


def csv_cell(value: object) -> object:
    """`value` as a CSV field that a spreadsheet shows as it is (see the module)."""
    if not isinstance(value, str):
        return value
    text = plain(value)
    runs = text.startswith(FORMULA_STARTS) or text.lstrip().startswith(FORMULA_STARTS)
    return "'" + text if runs and not is_number(text) else text


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
