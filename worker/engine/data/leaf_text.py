"""A LEAF file's JSON parsed with each user's x left as its text (`RawJson`), for a
decoder that reads the numbers itself (`leaf_grid.py`) instead of a Python float
being made for each: the text of every `"x": [[...]]` is cut out, a `NaN` put in its
place, and what is left (users, counts, labels) is parsed by `json`, each `NaN`
becoming the text it stands for. Where the cut is not certain (a `NaN` of the file's
own outside the cut texts, a quote inside one) the whole file is parsed as JSON.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

PLACE = b"NaN"  # not JSON's own, so the file's JSON holds none (checked)
KEY = b'"x"'
_VALUE = re.compile(rb"\s*:\s*(?=\[\s*\[)")  # after KEY: its value is a list of lists
_END = re.compile(rb"\]\s*\]")


@dataclass(frozen=True)
class RawJson:
    """A user's x as it is written in the file: `data[start:end]`."""

    data: bytes
    start: int
    end: int

    def text(self) -> bytes:
        return self.data[self.start : self.end]

    def parse(self) -> Any:
        """The value as JSON parses it; ValueError where the text is not JSON."""
        return json.loads(self.text())


def parse(data: bytes) -> Any:
    """The file's JSON with each user's list of lists under "x" as a `RawJson`;
    ValueError where the file is not JSON."""
    cut = _cut(data)
    if cut is None:
        return json.loads(data)
    skeleton, raws = cut
    left = iter(raws)

    def constant(name: str) -> Any:
        return next(left) if name == PLACE.decode() else float(name)

    doc = json.loads(skeleton, parse_constant=constant)
    if next(left, None) is not None:  # fewer values than cut texts: not where they were cut
        return json.loads(data)
    return doc


def _cut(data: bytes) -> tuple[bytes, list[RawJson]] | None:
    """The file with each x's text replaced by `PLACE`, and those texts in file order;
    None where the file holds a `PLACE` of its own or an x's text holds a quote (then
    `]]` did not end it: not LEAF's x)."""
    pieces: list[bytes] = []
    raws: list[RawJson] = []
    at = seek = 0  # the text not yet taken, where to look for the next key
    while (key := data.find(KEY, seek)) >= 0:
        seek = key + len(KEY)
        value = _VALUE.match(data, seek)
        if value is None or data[key - 1 : key] == b"\\":  # not a key, or inside a string
            continue
        start = value.end()
        end = _END.search(data, start)
        if end is None or data.find(b'"', start, end.end()) >= 0:
            return None
        pieces += [data[at:start], PLACE]
        raws.append(RawJson(data, start, end.end()))
        at = seek = end.end()
    pieces.append(data[at:])
    if any(PLACE in piece for piece in pieces[::2]):
        return None
    return b"".join(pieces), raws
