"""Imports follow the layers: fedwatch (the public surface and the command) above api,
api above worker, worker above db, and the engine imports none of the service; a
migration imports only what never changes under it. Below them all, the client
distribution (fedwatch's top-level modules) imports only the standard library; any
layer may import a fact it shares with the client from there."""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CLIENT = sorted((REPO / "fedwatch").glob("*.py"))  # what client/pyproject.toml ships
CLIENT_MODULES = {"fedwatch", *(f"fedwatch.{p.stem}" for p in CLIENT)} - {"fedwatch.__init__"}
# Imported inside functions only, on what the caller hands over or asks for: its own
# numpy arrays and torch tensors (tensorfile), pandas for DataFrames (extra `pandas`).
CALLERS_OWN = ("numpy", "torch")
# The module of an extra, which imports its package as it is imported; no other client
# module imports it then.
EXTRA_MODULES = {"fedwatch.flower": "flwr"}

# Each package, and the top-level packages it must not import (at any depth,
# function-level imports included).
FORBIDDEN = {
    "worker/engine": ("db", "api", "worker", "fedwatch", "celery", "fastapi", "sqlalchemy"),
    "db": ("worker", "api", "fedwatch"),
    "worker": ("api", "fedwatch"),
    "api": ("fedwatch",),
}
MIGRATION_IMPORTS = ("__future__", "alembic", "sqlalchemy", "numpy")


def names_of(node: ast.AST) -> list[str]:
    """The modules an import statement imports (absolute names; none for another node).
    `from fedwatch import x` imports the module `fedwatch.x`: the package's __init__
    holds nothing else."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "fedwatch":
        return [f"fedwatch.{alias.name}" for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module]
    return []


def imported(path: Path) -> list[str]:
    """The modules `path` imports (absolute names)."""
    return [n for node in ast.walk(ast.parse(path.read_text(), str(path))) for n in names_of(node)]


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
            if name.split(".")[0] in FORBIDDEN[package] and name not in CLIENT_MODULES:
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


def import_time(path: Path) -> list[str]:
    """The modules `path` imports as it is imported: not inside a function or a class,
    nor under `if TYPE_CHECKING:`."""
    names: list[str] = []
    pending: list[ast.stmt] = list(ast.parse(path.read_text(), str(path)).body)
    while pending:
        node = pending.pop()
        names += names_of(node)
        if isinstance(node, ast.If) and ast.unparse(node.test) != "TYPE_CHECKING":
            pending += node.body + node.orelse
        elif isinstance(node, ast.Try):
            pending += node.body + node.orelse + node.finalbody
            pending += [stmt for handler in node.handlers for stmt in handler.body]
    return names


def extras() -> set[str]:
    """The packages of the client's extras (client/pyproject.toml), by import name."""
    project = tomllib.loads((REPO / "client" / "pyproject.toml").read_text())["project"]
    assert project["dependencies"] == []
    requirements = [r for extra in project["optional-dependencies"].values() for r in extra]
    return {r.split(">")[0].split("=")[0].split("[")[0].strip() for r in requirements}


def test_the_client_imports_the_standard_library_and_its_extras_only() -> None:
    allowed = {*sys.stdlib_module_names, *CALLERS_OWN, *extras()}
    found = [
        f"fedwatch/{path.name} imports {name}"
        for path in CLIENT
        for name in imported(path)
        if name not in CLIENT_MODULES and name.split(".")[0] not in allowed
    ]
    assert found == []


def test_importing_the_client_needs_no_extra() -> None:
    found = []
    for path in CLIENT:
        extra = EXTRA_MODULES.get(f"fedwatch.{path.stem}")
        for name in import_time(path):
            top = name.split(".")[0]
            stdlib_or_client = top in sys.stdlib_module_names or name in CLIENT_MODULES
            if name in EXTRA_MODULES or not (stdlib_or_client or top == extra):
                found.append(f"fedwatch/{path.name} imports {name}")
    assert found == []
