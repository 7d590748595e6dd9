"""Reference runs of a paper's own code, bundled as `data/<preset>.json`: per
method, per seed, the logged accuracy curve and every round's available clients
(`active`), entered clients (`sampled`) and their weights."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from worker.reproduction.figures import Curve


@dataclass(frozen=True)
class ReferenceRun:
    method: str
    seed: int
    curve: Curve
    rounds: list[dict[str, Any]]  # {"active": [...], "sampled": [...], "weights": [...]}

    def replay(self, n_clients: int) -> list[str]:
        """Assignments that make a run draw this run's availability: a trace of its
        `active` sets (intervals client,start,end), with π and λ from the dataset's
        population, which the authors' oracle estimator reads."""
        on = np.zeros((len(self.rounds) + 1, n_clients), dtype=bool)
        for t, record in enumerate(self.rounds):
            on[t, record["active"]] = True
        rows = []
        for k in range(n_clients):
            changes = np.flatnonzero(np.diff(np.concatenate([[0], on[:, k].astype(int)])))
            rows += [f"{k},{a},{b}" for a, b in zip(changes[::2], changes[1::2], strict=True)]
        rows.append(f"{n_clients - 1},{len(on)},{len(on) + 1}")  # past the run: N ids
        return [
            "availability.kind=trace",
            "availability.trace.population=dataset",
            f"availability.trace.csv={json.dumps(chr(10).join(rows))}",
        ]


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
