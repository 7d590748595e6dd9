"""The manual links to the dashboard and to itself by path ("/", "/manual/"), never to
one host and port: it is served by whichever server runs it."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
# A Markdown link or autolink to a local address: `[text](http://127.0.0.1:8000/x)`, `<http://localhost:8000/>`.
LOCAL_LINK = re.compile(r"(?:\]\(|<)https?://(?:127\.0\.0\.1|localhost|0\.0\.0\.0)[:/]")


def test_no_link_of_the_manual_names_a_local_host() -> None:
    found = [
        f"{page.relative_to(DOCS)}:{number}: {line.strip()}"
        for page in sorted(DOCS.rglob("*.md"))
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if LOCAL_LINK.search(line)
    ]
    assert found == []
