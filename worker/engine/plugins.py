"""Plug-ins: components declared by installed distributions through entry points.

A distribution declares, in its `pyproject.toml`,

    [project.entry-points."fedwatch.algorithms"]
    fedau = "fedau.algorithm:FedAU"

The entry point's name is the component's name; loading its object imports the module,
whose decorator (`fedwatch.plugins.algorithm("fedau", ...)`) declares it. Groups:
`fedwatch.algorithms`, `fedwatch.availability`, `fedwatch.systems`, `fedwatch.datasets`,
`fedwatch.partitions`, `fedwatch.models`, `fedwatch.schedules`.

`load_plugins` takes them into a `Components` object (`components.installed()`, which
the command line, the API and the workers call once at start-up). A plug-in that cannot
be loaded (its import fails, its params model is invalid, its name clashes with a
built-in or another plug-in, or loading it declared nothing under its name) is skipped,
with nothing of it taken in, and logged as one warning line naming the entry point, its
distribution and the reason.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from importlib import metadata

from worker.engine import registry
from worker.engine.registry import (
    KINDS,
    Components,
    Declaration,
    Failed,
    Loaded,
    RegistrationError,
)

log = logging.getLogger("fedwatch.plugins")

GROUPS = {k.group: k for k in KINDS}


def _distribution(ep: metadata.EntryPoint) -> str | None:
    dist = getattr(ep, "dist", None)
    return None if dist is None else f"{dist.name} {dist.version}"


def _reason(err: BaseException) -> str:
    text = str(err) if isinstance(err, RegistrationError) else f"{type(err).__name__}: {err}"
    return " ".join(text.split())  # one line, whatever the exception held


def _declaration(ep: metadata.EntryPoint, obj: object, start: int) -> Declaration:
    """What loading `ep` declared under its name: a declaration its load made, or, where
    its module was imported before (another of its entry points, or a direct import),
    the declaration of `obj` under that name."""
    kind = GROUPS[ep.group]
    ours = [d for d in registry.declared() if d.kind is kind and d.name == ep.name]
    new = [d for d in ours[::-1] if d in registry.declared(start)]
    found = new or [d for d in ours[::-1] if d.component is obj]
    if not found:
        raise RegistrationError(
            f"loading it registered no {kind.section} named {ep.name!r} "
            f"(the decorator's name must equal the entry point's)"
        )
    return found[0]


def load_entry_point(ep: metadata.EntryPoint, into: Components) -> None:
    """Load one entry point into `into`; on failure take nothing in and record why."""
    dist = _distribution(ep)
    start = len(registry.declared())
    try:
        obj = ep.load()
        entry = into.add(_declaration(ep, obj, start), distribution=dist)
    except Exception as err:  # a plug-in's failure must not take the process down
        failure = Failed(f"{ep.group}:{ep.name} = {ep.value}", dist, _reason(err))
        into.plugins.failed.append(failure)
        log.warning(
            "plug-in %s from %s skipped: %s",
            failure.entry_point,
            dist or "no distribution",
            failure.reason,
        )
        return
    into.plugins.loaded.append(Loaded(ep.group, ep.name, entry.source, dist))


def load_plugins(into: Components, found: Iterable[metadata.EntryPoint] | None = None) -> None:
    """Load the entry points of every group (those of the installed distributions, or
    `found`) into `into`."""
    if found is None:
        found = [ep for group in GROUPS for ep in metadata.entry_points(group=group)]
    for ep in found:
        load_entry_point(ep, into)
