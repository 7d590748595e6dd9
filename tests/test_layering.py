"""Imports follow the layers: fedwatch (the public surface and the command) above api,
api above worker, worker above db, and the engine imports none of the service; a
migration imports only what never changes under it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Each package, and the top-level packages it must not import (at any depth,
# function-level imports included).
FORBIDDEN = {
    "worker/engine": ("db", "api", "worker", "fedwatch", "celery", "fastapi", "sqlalchemy"),
    "db": ("worker", "api", "fedwatch"),
    "worker": ("api", "fedwatch"),
    "api": ("fedwatch",),
}
MIGRATION_IMPORTS = ("__future__", "alembic", "sqlalchemy", "numpy")


def imported(path: Path) -> list[str]:
    """The modules `path` imports (absolute names)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_package_imports_a_layer_above(package: str) -> None:
    found = []
    for path in sorted((REPO / package).rglob("*.py")):
        inside = path.relative_to(REPO).as_posix()
        if package == "worker" and inside.startswith("worker/engine/"):
            continue  # checked on its own, more strictly
        for name in imported(path):
            if package == "worker/engine" and name.startswith("worker.engine"):
                continue
            if name.split(".")[0] in FORBIDDEN[package]:
                found.append(f"{inside} imports {name}")
    assert found == []


def test_migrations_import_nothing_that_changes() -> None:
    versions = REPO / "db" / "migrations" / "versions"
    found = [
        f"{path.name} imports {name}"
        for path in sorted(versions.glob("*.py"))
        for name in imported(path)
        if name.split(".")[0] not in MIGRATION_IMPORTS
    ]
    assert found == []
