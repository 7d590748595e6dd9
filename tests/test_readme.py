"""The README is the front door: short, its two commands first, and every manual page it
links to is there (the manual itself is checked by `make docs`, strict)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_readme_is_short_and_its_links_lead_somewhere() -> None:
    text = (REPO / "README.md").read_text()

    assert len(text.splitlines()) < 200
    assert "make run" in text and "make test" in text
    links = re.findall(r"\]\(((?:docs/)[^)#]+)", text)
    assert len(links) >= 15
    assert [link for link in links if not (REPO / link).is_file()] == []
