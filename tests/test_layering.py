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
from types import ModuleType

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


def run_time_imports(path: Path, module: str, annotations: bool = False) -> set[str]:
    """The modules `path` (the module `module`) imports when it runs: function-level
    imports included, `if TYPE_CHECKING:` blocks (annotations only) left out unless
    `annotations`. `from a import b` imports `a.b` where that is a module, else `a`."""
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        if (
            isinstance(node, ast.If)
            and ast.unparse(node.test).endswith("TYPE_CHECKING")
            and not annotations
        ):
            for branch in node.orelse:
                visit(branch)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            subs = [f"{base}.{alias.name}" for alias in node.names]
            found.update(subs if all(s in MODULES for s in subs) else [base])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(), str(path)))
    return found


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


SOURCES = {
    module_name(p): p
    for top in ("fedwatch", "api", "worker", "db")
    for p in (REPO / top).rglob("*.py")
}
MODULES = set(SOURCES)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            if component:
                out.append(sorted([v, *component]))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def import_graph(annotations: bool) -> dict[str, set[str]]:
    """Each module of the repository, and the modules of the repository it imports (the
    nearest one an import names), type-only imports included if `annotations`."""
    return {
        m: {
            next((c for c in _prefixes(name) if c in MODULES), "")
            for name in run_time_imports(path, m, annotations)
        }
        - {"", m}
        for m, path in SOURCES.items()
    }


def test_no_module_imports_itself_through_others() -> None:
    """The house reads top-down: no circle of imports among its modules, counting the
    imports made inside functions (a deferred import is a circle all the same)."""
    assert cycles(import_graph(annotations=False)) == []
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_circle_through_type_only_imports() -> None:
    """Nor a circle closed by imports under `if TYPE_CHECKING:`: a module that needs
    another's type to be read depends on it as much as one that calls it."""
    assert cycles(import_graph(annotations=True)) == []


def _prefixes(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


# The engine's modules the service reads besides its surface (`worker/engine/__init__.py`'s
# `__all__`), and why each is not names of that surface.
ENGINE_NAMESPACES = {
    "worker.engine.metrics": "the metric catalogue: functions read as the catalogue's "
    "(`metrics.catalogue()`, `metrics.get(name)`, `metrics.compared()`)",
    "worker.engine.bias": "participation bias, which the ingest and the client view compute "
    "from stored rounds as the engine does: `split`, `Bin`, read as the module's",
    "worker.engine.data.vision": "where a torchvision dataset's files lie (`needs`), beside",
    "worker.engine.data.leaf": "where a LEAF dataset's files lie (`needs`): two of one name",
    "worker.engine.moved": "a stored config with moved fields where they live now: `moved`, a "
    "function named as its module, which the package cannot also export by that name",
    "worker.engine.used_params": "a config's selected components' own parameters: likewise",
}
# What a plug-in imports (`fedwatch.plugins`): the engine's extension points, by design.
PLUGIN_SURFACE = "fedwatch/plugins/__init__.py"


def engine_imports(path: Path) -> list[str]:
    """What `path` imports from the engine: `worker.engine.<name>` per name imported from
    the package, the module otherwise (function-level and type-only imports included)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "worker.engine":
                found += [f"worker.engine.{alias.name}" for alias in node.names]
            elif node.module.startswith("worker.engine."):
                subs = [f"{node.module}.{alias.name}" for alias in node.names]
                found += subs if all(s in MODULES for s in subs) else [node.module]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("worker.engine")]
    return found


def test_the_service_imports_the_engine_through_its_surface() -> None:
    """The service (api, db, the workers outside the engine, fedwatch) imports the names of
    `worker.engine`'s `__all__`, and the few modules of `ENGINE_NAMESPACES`."""
    import worker.engine

    surface = {f"worker.engine.{name}" for name in worker.engine.__all__}
    found = [
        f"{path.relative_to(REPO).as_posix()} imports {name}"
        for top in ("api", "db", "worker", "fedwatch")
        for path in sorted((REPO / top).rglob("*.py"))
        if not path.relative_to(REPO).as_posix().startswith(("worker/engine/", PLUGIN_SURFACE))
        for name in engine_imports(path)
        if name not in surface and name not in ENGINE_NAMESPACES
    ]
    assert found == []


def test_every_name_of_the_surface_is_the_engines_and_no_module() -> None:
    import worker.engine

    names = worker.engine.__all__
    assert len(names) == len(set(names))
    for name in names:
        value = getattr(worker.engine, name)
        assert not isinstance(value, ModuleType), name
