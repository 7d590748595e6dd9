"""Plug-ins: components registered by installed distributions through entry points.

A distribution declares, in its `pyproject.toml`,

    [project.entry-points."fedwatch.algorithms"]
    fedau = "fedau.algorithm:FedAU"

The entry point's name is the component's name; loading its object imports the module,
whose decorator (`fedwatch.plugins.algorithm("fedau", ...)`) registers it. Groups:
`fedwatch.algorithms`, `fedwatch.availability`, `fedwatch.systems`, `fedwatch.datasets`,
`fedwatch.models`.

`load_plugins` runs once per process, when `worker.engine.config` is imported. A plug-in
that cannot be loaded (its import fails, its params model is invalid, its name clashes
with a built-in or another plug-in, or loading it registered nothing under its name)
is rolled back, so nothing of it stays registered, logged as one warning line naming
the entry point, its distribution and the reason, and skipped.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from importlib import metadata

from worker.engine import registry
from worker.engine.registry import REGISTRIES, RegistrationError

log = logging.getLogger("fedwatch.plugins")

GROUPS = {r.group: r for r in REGISTRIES}


@dataclass(frozen=True)
class Loaded:
    """A component a plug-in registered: its group, name, registration `file:line`
    and distribution (`name version`)."""

    group: str
    name: str
    source: str
    distribution: str | None


@dataclass(frozen=True)
class Failed:
    """An entry point that was skipped (`group:name = module:attr`), and why."""

    entry_point: str
    distribution: str | None
    reason: str


@dataclass
class PluginReport:
    """What `load_plugins` loaded and skipped."""

    loaded: list[Loaded] = field(default_factory=list)
    failed: list[Failed] = field(default_factory=list)


_report = PluginReport()
_done = False


def report() -> PluginReport:
    """The plug-ins of this process: loaded and skipped."""
    import worker.engine.config  # noqa: F401  (loads them, once)

    return _report


def _distribution(ep: metadata.EntryPoint) -> str | None:
    dist = getattr(ep, "dist", None)
    return None if dist is None else f"{dist.name} {dist.version}"


def _reason(err: BaseException) -> str:
    text = str(err) if isinstance(err, RegistrationError) else f"{type(err).__name__}: {err}"
    return " ".join(text.split())  # one line, whatever the exception held


def _registered_by(
    ep: metadata.EntryPoint, obj: object, before: dict[str, tuple[str, ...]], dist: str | None
) -> bool:
    """Whether `ep.name` was registered by this load, or, when its module was imported
    before (another of its entry points, or a direct import), is `obj` registered by
    no built-in. Records the distribution on an entry registered outside the loader."""
    target = GROUPS[ep.group]
    if ep.name not in target:
        return False
    entry = target.get(ep.name)
    if ep.name not in before[ep.group]:
        return True
    if entry.component is not obj or entry.builtin:
        return False
    if entry.distribution is None:
        target.entries[ep.name] = replace(entry, distribution=dist)
    return True


def load_entry_point(ep: metadata.EntryPoint, into: PluginReport) -> None:
    """Load one entry point; on failure roll back what it registered and record why."""
    target = GROUPS[ep.group]
    dist = _distribution(ep)
    before = registry.snapshot()
    try:
        with registry.loading(dist):
            obj = ep.load()
        if not _registered_by(ep, obj, before, dist):
            raise RegistrationError(
                f"loading it registered no {target.section} named {ep.name!r} "
                f"(the decorator's name must equal the entry point's)"
            )
    except Exception as err:  # a plug-in's failure must not take the process down
        registry.rollback(before)
        failure = Failed(f"{ep.group}:{ep.name} = {ep.value}", dist, _reason(err))
        into.failed.append(failure)
        log.warning(
            "plug-in %s from %s skipped: %s",
            failure.entry_point,
            dist or "no distribution",
            failure.reason,
        )
        return
    entry = target.get(ep.name)
    into.loaded.append(Loaded(ep.group, ep.name, entry.source, dist))


def load_plugins(found: Iterable[metadata.EntryPoint] | None = None) -> PluginReport:
    """Load the entry points of every group (those of the installed distributions, or
    `found`); the installed ones only once per process."""
    global _done
    if found is None:
        if _done:
            return _report
        _done = True
        found = [ep for group in GROUPS for ep in metadata.entry_points(group=group)]
        into = _report
    else:
        into = PluginReport()
    for ep in found:
        load_entry_point(ep, into)
    return into
