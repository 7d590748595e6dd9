"""A value a user picks from a fixed set (a grouping, a band, a file format) with the
words a page shows for it. Each set is declared beside the `Literal` it labels, and
`GET /api/meta` serves them, so a page spells none of them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Choice:
    name: str
    label: str
