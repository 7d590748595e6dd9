"""Admission: a run whose estimated memory or work exceeds this server's limits is
refused with a 422 before anything is created or queued. The error names the config
field that drives the estimate, in the format of `api/errors.py`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fastapi.exceptions import RequestValidationError

from api.errors import PATH_PREFIX
from api.sweep import Cell, blame
from worker.engine import ConfigError, RunConfig
from worker.engine.resources import (
    Estimate,
    Term,
    estimate,
    format_bytes,
    format_flops,
    largest,
)
from worker.settings import Settings

# The recorder holds the rounds since its last hand-over and up to two batches that
# wait for its writer. A checkpoint being written is held 5 times over (measured with
# a FedLaAvg memory of 500 MB: the engine's snapshot, torch.save's bytes and 3 copies
# while SQLite stores them; 2 on Postgres), and the engine may take the next snapshot
# meanwhile.
HELD_BATCHES = 3
HELD_STATES = 6


@dataclass(frozen=True)
class Refusal:
    path: tuple[str, ...]  # the config field
    msg: str
    type: str


def run_estimate(config: RunConfig, settings: Settings) -> Estimate:
    """What a run of `config` needs as this service executes it."""
    return estimate(
        config, held_rounds=HELD_BATCHES * settings.flush_rounds, held_states=HELD_STATES
    )


def refusals(config: RunConfig, settings: Settings) -> list[Refusal]:
    """Why this server refuses `config` (nothing: it may run)."""
    try:
        found = run_estimate(config, settings)
    except ConfigError as err:
        match = PATH_PREFIX.match(str(err))
        path, msg = match.groups() if match else ("", str(err))
        return [Refusal(tuple(path.split(".")) if path else (), msg, "value_error")]
    out = []
    memory_limit = settings.max_run_memory_mb * 2**20
    if found.host_bytes > memory_limit:
        terms = largest(found.host_terms, 3)
        out.append(
            Refusal(
                tuple(terms[0].field.split(".")),
                f"estimated memory {format_bytes(found.host_bytes)} ({_parts(terms, format_bytes)})"
                f" exceeds this server's limit of {format_bytes(memory_limit)}"
                f" ({Settings.env_name('max_run_memory_mb')}={settings.max_run_memory_mb})",
                "memory_limit",
            )
        )
    if found.flops > settings.max_run_gflop * 1e9:
        terms = largest(found.work, 3)
        out.append(
            Refusal(
                tuple(terms[0].field.split(".")),
                f"estimated work {format_flops(found.flops)} ({_parts(terms, format_flops)})"
                f" exceeds this server's limit of {format_flops(settings.max_run_gflop * 1e9)}"
                f" ({Settings.env_name('max_run_gflop')}={settings.max_run_gflop:g})",
                "work_limit",
            )
        )
    return out


def _parts(terms: list[Term], unit: Any) -> str:
    return "; ".join(f"{t.label}: {unit(t.amount)}" for t in terms)


def admit(config: RunConfig, settings: Settings, loc: Sequence[str] = ("body", "config")) -> None:
    """Raise a 422 for a config this server refuses."""
    errors = [
        {"loc": [*loc, *r.path], "msg": r.msg, "type": r.type} for r in refusals(config, settings)
    ]
    if errors:
        raise RequestValidationError(errors)


def admit_sweep(cells: list[Cell], grid_keys: list[str], settings: Settings) -> None:
    """Raise a 422 listing every cell of a sweep this server refuses."""
    errors = [
        {"loc": blame(r.path, grid_keys), "msg": cell.prefix + r.msg, "type": r.type}
        for cell in cells
        for r in refusals(cell.config, settings)
    ]
    if errors:
        raise RequestValidationError(errors)
