"""Facts with one owner: a second list of the run statuses, or a second copy of the
chart panels' titles, fails here. The browser reads both from the server
(`GET /api/meta`, `GET /api/metrics/panels`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from db.status import STORED, Status
from worker.engine import metrics

ROOT = Path(__file__).resolve().parents[1]
NAMES = {s.value for s in Status}
OWNER = ROOT / "db" / "status.py"
PYTHON = ("api", "bench", "db", "docs", "fedwatch", "worker")
JS = sorted((ROOT / "frontend" / "js").rglob("*.js"))


def listed_statuses(node: ast.AST) -> set[str]:
    """The status names that a tuple, list, set or `Literal[...]` spells out."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        if node.value.id != "Literal":
            return set()
        node = node.slice
    if not isinstance(node, ast.Tuple | ast.List | ast.Set):
        return set()
    return {e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in NAMES}


def test_statuses_are_listed_once_in_python() -> None:
    found = []
    for package in PYTHON:
        for path in (ROOT / package).rglob("*.py"):
            if path == OWNER:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if len(names := listed_statuses(node)) >= 2:
                    found.append(f"{path.relative_to(ROOT)}: {sorted(names)}")
    assert found == []


def test_the_browser_lists_no_statuses_and_no_panel_titles() -> None:
    literal = re.compile(r"\[([^\[\]]*)\]")
    quoted = re.compile(r"""["']([a-z]+)["']""")
    titles = [p.title for p in metrics.PANELS]
    found = []
    for path in JS:
        text = path.read_text(encoding="utf-8")
        for match in literal.finditer(text):
            if len(set(quoted.findall(match.group(1))) & NAMES) >= 2:
                found.append(f"{path.name}: {match.group(0)[:60]}")
        found += [
            f"{path.name}: {t!r}" for t in titles if re.search(f"[\"'`]{re.escape(t)}[\"'`]", text)
        ]
    assert found == []


def test_the_check_sees_a_second_list() -> None:
    # What the two tests above look for, written out: they would fail on it.
    assert len(listed_statuses(ast.parse('X = ("failed", "cancelled")').body[0].value)) == 2  # type: ignore[attr-defined]
    assert listed_statuses(ast.parse('Literal["queued", "running"]').body[0].value)  # type: ignore[attr-defined]
    assert "stalled" not in STORED


def test_every_panel_is_used_and_every_round_metric_has_one() -> None:
    declared = {p.name for p in metrics.PANELS}
    used = {s.panel for s in metrics.ROUND_METRICS}
    assert declared == used
    assert [p.name for p in metrics.panels()][: len(declared)] == [p.name for p in metrics.PANELS]
