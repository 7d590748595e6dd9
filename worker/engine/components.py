"""The components a process runs with: one registry per kind, what the plug-ins gave,
and `RunConfig`'s class built from them.

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
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from worker.engine import metrics, plugins
from worker.engine.metrics import MetricSpec
from worker.engine.params import Params
from worker.engine.registry import (
    ALGORITHM,
    AVAILABILITY,
    DATASET,
    MODEL,
    PARTITION,
    SCHEDULE,
    SYSTEM,
    Declaration,
    Entry,
    Kind,
    RegistrationError,
    Registry,
    declared,
    metric_specs,
)

if TYPE_CHECKING:
    from worker.engine.config import RunConfig

S = TypeVar("S", bound=Params)

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


@dataclass
class Components:
    """One registry per kind of component, and the round metrics its algorithms add to
    the catalogue. `plugins`: what loading the installed plug-ins gave (empty where they
    were not loaded)."""

    algorithms: Registry = field(default_factory=lambda: Registry(ALGORITHM))
    availability: Registry = field(default_factory=lambda: Registry(AVAILABILITY))
    systems: Registry = field(default_factory=lambda: Registry(SYSTEM))
    datasets: Registry = field(default_factory=lambda: Registry(DATASET))
    partitions: Registry = field(default_factory=lambda: Registry(PARTITION))
    models: Registry = field(default_factory=lambda: Registry(MODEL))
    schedules: Registry = field(default_factory=lambda: Registry(SCHEDULE))
    round_metrics: list[MetricSpec] = field(default_factory=list)
    plugins: plugins.PluginReport = field(default_factory=plugins.PluginReport)

    @classmethod
    def of(cls, *taken: Declaration | Any) -> Components:
        """Components of exactly these: declarations, or components declared once."""
        return cls().include(*taken)

    def include(self, *taken: Declaration | Any) -> Components:
        """These too (declarations, or components declared once); returns self."""
        for item in taken:
            self.add(item if isinstance(item, Declaration) else _declaration_of(item))
        return self

    @property
    def registries(self) -> tuple[Registry, ...]:
        return (
            self.algorithms,
            self.availability,
            self.systems,
            self.datasets,
            self.partitions,
            self.models,
            self.schedules,
        )

    def registry(self, kind: Kind) -> Registry:
        return next(r for r in self.registries if r.kind is kind)

    def add(self, declaration: Declaration, distribution: str | None = None) -> Entry:
        """Take a declaration in; raises RegistrationError, with nothing taken, where its
        name is taken or its metrics clash with the catalogue's."""
        target = self.registry(declaration.kind)
        name, where = declaration.name, declaration.where
        for held in self._namesakes(declaration.kind):
            if name in held:
                raise RegistrationError(
                    f"{where}: the name is already registered by {held.get(name).source}"
                )
        specs = (
            metric_specs(declaration.component, where, self.round_metrics)
            if declaration.kind is ALGORITHM
            else []
        )
        entry = Entry(
            group=target.group,
            name=name,
            component=declaration.component,
            params=declaration.params,
            source=declaration.source,
            label=declaration.label,
            distribution=distribution,
            facts=declaration.facts,
            added_metrics=tuple(s.name for s in specs),
            module=declaration.module,
        )
        target.entries[name] = entry
        self.round_metrics.extend(specs)
        self.__dict__.pop("run_config", None)  # built again from what is here now
        return entry

    def _namesakes(self, kind: Kind) -> list[Registry]:
        """The registries a component of `kind` must not share a name with: its own, and
        those whose params live in the same section (`data.<name>`: datasets and
        partitions)."""
        return [r for r in self.registries if r.kind is kind or r.section == kind.section]

    @cached_property
    def run_config(self) -> type[RunConfig]:
        """`RunConfig`'s class for these components: the registered names, and one params
        sub-object per component with params."""
        from worker.engine.config import build_run_config  # it reads these, not we it

        return build_run_config(self)

    def section(self, base: type[S]) -> type[S]:
        """The class `run_config` holds a section of `base`'s in (`DataSection` → the
        data section, with its dataset names and sub-objects)."""
        for info in self.run_config.model_fields.values():
            cls = info.annotation
            if isinstance(cls, type) and issubclass(cls, base):
                return cls
        raise KeyError(f"no section of {base.__name__}")


def _declaration_of(component: Any) -> Declaration:
    found = [d for d in declared() if d.component is component]
    if len(found) != 1:
        raise RegistrationError(
            f"{component!r} is declared {len(found)} times; pass the declaration itself"
        )
    return found[0]


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
