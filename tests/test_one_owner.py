"""Facts with one owner: a second list of the run statuses, a second copy of the chart
panels' titles, or a second spelling of a storage limit (`fedwatch/limits.py`) fails
here. The browser reads the first two from the server (`GET /api/meta`,
`GET /api/metrics/panels`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from db.status import STORED, Status
from fedwatch import limits
from worker.engine import metrics
from worker.results.curves import X_AXES
from worker.results.figures import BAND_CHOICES, FIGURE_CHOICES
from worker.results.grouping import GROUP_BY_CHOICES
from worker.results.table import FILE_CHOICES

ROOT = Path(__file__).resolve().parents[1]
NAMES = {s.value for s in Status}
OWNER = ROOT / "db" / "status.py"
# Lists of other things whose names are also status names: a tune trial's states
# (Optuna's: running, complete, pruned, failed, waiting), in its schema and its page.
TRIAL_STATES = {ROOT / "api" / "schemas" / "tunes.py", ROOT / "frontend" / "js" / "pages" / "tune"}
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
            if path == OWNER or path in TRIAL_STATES:
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
    for path in (p for p in JS if p.parent not in TRIAL_STATES):
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


# The storage limits (`fedwatch/limits.py`): the 32-bit bound, spelled `2**31` or its
# digits, and the name lengths, spelled as a column's width, a `max_length`, a slice, a
# comparison with a `len()`, a pattern's `{1,N}` or a constant of their own. Migrations
# keep the numbers of their day; these files hold the same numbers for facts that are
# stored nowhere.
LIMITS = ROOT / "fedwatch" / "limits.py"
LENGTHS = {limits.METRIC_NAME_MAX, limits.COMPONENT_NAME_MAX, limits.TAG_MAX}
NOT_STORED = {
    "fedwatch/spool.py": "the run's name in a spool file's name",
    "worker/engine/data/hf.py": "the seeds flwr-datasets takes",
    "worker/engine/data/partitions/natural.py": "a column of a dataset",
}
PATTERN = re.compile(r"\{\d*,(\d+)\}")


def _constant(node: ast.AST | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _length_in(node: ast.AST) -> ast.AST | None:
    """The number a column's width, a `max_length`, a slice `[:N]`, a comparison of a
    `len()` or a constant named a maximum gives, if `node` is one."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "String" and node.args:
        return node.args[0]
    if isinstance(node, ast.keyword) and node.arg == "max_length":
        return node.value
    if isinstance(node, ast.Slice) and node.lower is None:
        return node.upper
    if isinstance(node, ast.Compare) and isinstance(node.left, ast.Call):
        return node.comparators[0] if getattr(node.left.func, "id", None) == "len" else None
    if isinstance(node, ast.Assign) and any("MAX" in getattr(t, "id", "") for t in node.targets):
        return node.value  # a second owner: `NAME_MAX = 64`
    return None


def spelled_limits(node: ast.AST) -> str | None:
    """What `node` spells of a storage limit, if anything."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        if (_constant(node.left), _constant(node.right)) == (2, 31):
            return "the 32-bit bound"
    elif _constant(node) in (2**31 - 1, 2**31):
        return "the 32-bit bound"
    elif isinstance(text := _constant(node), str):
        if any(int(n) in LENGTHS for n in PATTERN.findall(text)):
            return f"a length in {text!r}"
    elif _constant(_length_in(node)) in LENGTHS:
        return f"a length of {_constant(_length_in(node))}"
    return None


def test_storage_limits_are_spelled_once() -> None:
    found = []
    for package in PYTHON:
        for path in (ROOT / package).rglob("*.py"):
            skipped = path == LIMITS or "migrations" in path.parts
            if skipped or path.relative_to(ROOT).as_posix() in NOT_STORED:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found += [
                f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}: {what}"
                for node in ast.walk(tree)
                if (what := spelled_limits(node))
            ]
    assert found == []


@pytest.mark.parametrize(
    "code",
    [
        "MAX_INT = 2**31 - 1",
        "ok = abs(seed) < 2**31",
        "Id = Field(le=2147483647)",
        "name = mapped_column(String(64))",
        "tag: str = Query(max_length=40)",
        "short = value[:40]",
        "long = len(name) > 64",
        "METRIC_NAME_MAX = 64",
        'MetricName = StringConstraints(pattern=r"^[a-z]{1,64}$")',
    ],
)
def test_the_check_sees_a_second_spelling_of_a_limit(code: str) -> None:
    assert [n for n in ast.walk(ast.parse(code)) if spelled_limits(n)]


def test_the_check_leaves_other_numbers_alone() -> None:
    code = "x = String(200); y = v[:3]; z = 2**32 - 1; p = r'[a-z]{1,20}'; n = len(s) > 4"
    assert [n for n in ast.walk(ast.parse(code)) if spelled_limits(n)] == []


# The facts GET /api/meta and the catalogue serve, which a page reads and never spells:
# the x axes' titles and choosers, the comparison's groupings, bands and file formats,
# and what used to be decided by a name in the browser: the
# Plotly config (plot.js owns it), a metric's log scale, a dataset's first metric.
def served_words() -> set[str]:
    choices = (*GROUP_BY_CHOICES, *BAND_CHOICES, *FIGURE_CHOICES, *FILE_CHOICES)
    return {
        *(a.title for a in X_AXES if a.title != a.key),
        *(a.option for a in X_AXES),
        *(c.label for c in choices),
    }


DECIDED_BY_NAME = re.compile(r"""===?\s*["']opt_gap["']|["']mean_estimation["']|displaylogo""")
QUOTED = re.compile(r"""["'`]([^"'`\n]+)["'`]""")
COMMENT = re.compile(r"^\s*(//|/?\*)")


def spelled_facts(text: str, owner: bool = False) -> list[str]:
    """The served facts a front-end file spells (`owner`: plot.js, which owns the config)."""
    words = served_words()
    found = []
    for line in text.splitlines():
        if COMMENT.match(line):
            continue
        found += [q for q in QUOTED.findall(line) if q in words]
        found += [m for m in DECIDED_BY_NAME.findall(line) if not (owner and m == "displaylogo")]
    return found


def test_the_browser_spells_no_served_fact() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {what}"
        for path in JS
        for what in spelled_facts(path.read_text(encoding="utf-8"), path.name == "plot.js")
    ]
    assert found == []


@pytest.mark.parametrize(
    "line",
    [
        'const X = { wall_s: "wall time (s)" };',
        '["ci", "band: 95 % CI of the mean"],',
        'log: state.metric === "opt_gap",',
        'runs.every((r) => r.dataset === "mean_estimation")',
        "const PLOT_CONFIG = { responsive: true, displaylogo: false };",
        '["tex", "LaTeX"],',
    ],
)
def test_the_check_sees_a_served_fact_spelled(line: str) -> None:
    assert spelled_facts(line)
    assert spelled_facts("// " + line) == []  # a comment may name it
