"""The components a process runs with (a `Components` object, `registry.py`): built at
its start-up, installed, and read back with `current()`.

Importing a component's module declares it (`registry.py`) and registers nothing. The
command line, the API and the workers build the installed components once at start-up,
`install(installed())`: the built-in ones, then the plug-ins of the installed
distributions. A test builds exactly the ones it wants (`Components.of`, `using`).

A config knows the components its class was built from (`RunConfig.components`), so the
engine reads them from the config it runs. Code that builds a config from data reads the
process's with `current()`; a library user who installed none gets the installed ones
there, on first use.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from contextlib import contextmanager

from worker.engine import metrics, plugins
from worker.engine.registry import Components, declared

# The packages (or modules) whose modules declare the built-in components.
BUILTIN_HOMES = (
    "worker.engine.algorithms",
    "worker.engine.availability",
    "worker.engine.system",
    "worker.engine.data",
    "worker.engine.data.partitions",
    "worker.engine.models",
    "worker.engine.schedules",
)


def builtin_modules() -> list[str]:
    """The modules of `BUILTIN_HOMES`, in order: each home, then the modules of a home that
    is a package (discovery: adding a component touches its own file only). Imports the
    packages, not their modules."""
    out: list[str] = []
    for home in BUILTIN_HOMES:
        package = importlib.import_module(home)
        out.append(home)
        out += [f"{home}.{m.name}" for m in pkgutil.iter_modules(getattr(package, "__path__", []))]
    return out


def builtin() -> Components:
    """The built-in components: every declaration made by a module of `BUILTIN_HOMES`,
    in their modules' order."""
    for name in builtin_modules():
        importlib.import_module(name)
    homes = tuple(f"{h}." for h in BUILTIN_HOMES)
    return Components.of(
        *(d for d in declared() if d.module in BUILTIN_HOMES or d.module.startswith(homes))
    )


def installed() -> Components:
    """The built-in components, then the installed distributions' plug-ins."""
    out = builtin()
    plugins.load_plugins(out)
    return out


_current: list[Components] = []


def install(components: Components) -> Components:
    """Make `components` this process's: what `current()` gives, and the catalogue's
    registered round metrics."""
    _current[:] = [components]
    metrics.use(components.round_metrics)
    return components


def current() -> Components:
    """This process's components (the installed ones, installed here, if none were)."""
    return _current[-1] if _current else install(installed())


@contextmanager
def using(components: Components) -> Iterator[Components]:
    """These components for the block, then the ones before (tests)."""
    before = list(_current)
    install(components)
    try:
        yield components
    finally:
        _current[:] = before
        metrics.use(before[-1].round_metrics if before else [])
