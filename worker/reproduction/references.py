"""Reference runs of a paper's own code, bundled as `data/<preset>.json`: per
method, per seed, the logged accuracy curve and every round's available clients
(`active`), entered clients (`sampled`) and their weights."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from worker.reproduction.figures import Curve


@dataclass(frozen=True)
class ReferenceRun:
    method: str
    seed: int
    curve: Curve
    rounds: list[dict[str, Any]]  # {"active": [...], "sampled": [...], "weights": [...]}


@dataclass(frozen=True)
class Reference:
    preset: str
    source: str
    runs: dict[str, list[ReferenceRun]]  # method -> runs by seed

    def curves(self, method: str) -> list[Curve]:
        return [r.curve for r in self.runs.get(method, [])]


@cache
def reference(preset: str) -> Reference | None:
    """The bundled reference runs of `preset`, or None where none are bundled."""
    path = resources.files("worker.reproduction.data") / f"{preset}.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    runs = {
        method: [
            ReferenceRun(
                method,
                int(r["seed"]),
                Curve(
                    int(r["seed"]),
                    tuple(r["test_accuracy"]["rounds"]),
                    tuple(r["test_accuracy"]["values"]),
                ),
                r["rounds"],
            )
            for r in entries
        ]
        for method, entries in data["runs"].items()
    }
    return Reference(data["preset"], data["source"], runs)
