"""The Flower tests run where a Flower user's code would: beside the client
(`fedwatch-client[flower]`), Flower's simulation engine and the test tools, with none
of what only the server needs."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def canonical(requirement: str) -> str:
    """A requirement's distribution name, normalised (PEP 503)."""
    match = re.match(r"[A-Za-z0-9_.-]+", requirement.strip())
    assert match is not None, requirement
    return re.sub(r"[-_.]+", "-", match.group()).lower()


def servers_only(installed: dict[str, metadata.Distribution]) -> list[str]:
    """The server's requirements (pyproject.toml) that are installed with nothing else
    installed requiring them."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    server = {canonical(r) for r in project["dependencies"]} - {"fedwatch-client"}
    required = {
        canonical(r)
        for dist in installed.values()
        for r in dist.requires or []
        if "extra ==" not in r
    }
    return sorted(n for n in server if n in installed and n not in required)


def test_nothing_here_is_the_servers_alone() -> None:
    installed = {canonical(d.metadata["Name"]): d for d in metadata.distributions()}
    installed.pop("fedwatch", None)  # the tree's own metadata, seen from its root

    assert "fedwatch-client" in installed
    assert servers_only(installed) == []
