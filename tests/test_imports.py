"""Every name the project imports from its own modules exists there. mypy cannot see it
for `worker.engine`, whose names load on first use (`__getattr__`): a name moved out of
its surface passed the type check and failed only when imported."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("api", "bench", "db", "examples", "fedwatch", "tests", "worker")
OWN = {"api", "db", "fedwatch", "worker"}
ELSEWHERE = {"fedwatch.flower": "imports flwr, installed only beside the Flower tests"}


def imported(tree: ast.AST) -> list[tuple[str, str]]:
    """(module, name) of each `from <project module> import <name>` in `tree`."""
    return [
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
        if node.module.split(".")[0] in OWN and node.module not in ELSEWHERE
        for alias in node.names
        if alias.name != "*"
    ]


def missing(module: str, name: str) -> bool:
    if hasattr(importlib.import_module(module), name):
        return False
    try:  # a submodule imported by name
        importlib.import_module(f"{module}.{name}")
    except ModuleNotFoundError:
        return True
    return False


def test_every_imported_name_exists() -> None:
    found = [
        f"{path.relative_to(ROOT)}: from {module} import {name}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for module, name in imported(ast.parse(path.read_text(encoding="utf-8")))
        if missing(module, name)
    ]
    assert found == []


def test_the_check_sees_a_name_that_is_gone() -> None:
    tree = ast.parse("from worker.engine import stats\nfrom worker.engine import simulate")
    assert [(m, n) for m, n in imported(tree) if missing(m, n)] == [("worker.engine", "stats")]
