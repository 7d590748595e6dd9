"""Admission: what this server refuses to run, with a 422 before anything is created or
queued: a run whose estimated memory or work exceeds its limits (the error names the
config field that drives the estimate), a dataset outside its data root, a download it
does not allow, a dataset whose own check of its files fails (a LEAF split without JSON
files, an `hf` column missing), system-model files it cannot read as data (read in a
process apart, under a memory cap). Errors in the format of `api/errors.py`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fastapi.exceptions import RequestValidationError

from api.errors import PATH_PREFIX
from api.sweep import Cell, blame
from db.settings import Settings
from worker.data_root import data_folder, reading
from worker.engine import (
    ConfigError,
    Estimate,
    RunConfig,
    SystemSpec,
    check_dataset,
    estimate,
    format_bytes,
    format_flops,
    largest,
    system_spec,
)
from worker.system_check import check_systems

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


def refused(err: ConfigError) -> Refusal:
    """A `ConfigError` ("<field path>: <why>") as a refusal at its field."""
    match = PATH_PREFIX.match(str(err))
    path, msg = match.groups() if match else ("", str(err))
    return Refusal(tuple(path.split(".")) if path else (), msg, "value_error")


def refusals(configs: Sequence[RunConfig], settings: Settings) -> list[list[Refusal]]:
    """Why this server refuses each config (nothing: it may run). The configs' system
    models are built in one process apart (`worker/system_check.py`): their files are
    users' files, and reading one must not cost the API its memory."""
    found: list[list[Refusal]] = []
    specs: dict[int, SystemSpec] = {}
    for i, config in enumerate(configs):
        try:
            folder = data_folder(config, settings)
            check_dataset(reading(config, folder).data)
            spec = system_spec(config, config.data.n_clients, str(folder))
            found.append(_limits(reading(config, folder), settings))
        except ConfigError as err:
            found.append([refused(err)])
            continue
        if spec.timed:
            specs[i] = spec
    verdicts = check_systems(list(specs.values()), settings.max_file_read_mb)
    for i, why in zip(specs, verdicts, strict=True):
        if why is not None:
            found[i] = [refused(ConfigError(why))]
    return found


def _limits(config: RunConfig, settings: Settings) -> list[Refusal]:
    """The refusals of a run estimated past this server's limits."""
    found = run_estimate(config, settings)
    checks = (
        ("memory", found.host_bytes, found.host_terms, format_bytes, "max_run_memory_mb", 2**20),
        ("work", found.flops, found.work, format_flops, "max_run_gflop", 1e9),
    )
    out = []
    for kind, total, terms, unit, setting, scale in checks:
        value = getattr(settings, setting)
        if total > value * scale:
            top = largest(terms, 3)
            parts = "; ".join(f"{t.label}: {unit(t.amount)}" for t in top)
            msg = (
                f"estimated {kind} {unit(total)} ({parts}) exceeds this server's limit of "
                f"{unit(value * scale)} ({Settings.env_name(setting)}={value:g})"
            )
            out.append(Refusal(tuple(top[0].field.split(".")), msg, f"{kind}_limit"))
    return out


def admit(config: RunConfig, settings: Settings, loc: Sequence[str] = ("body", "config")) -> None:
    """Raise a 422 for a config this server refuses."""
    [found] = refusals([config], settings)
    errors = [{"loc": [*loc, *r.path], "msg": r.msg, "type": r.type} for r in found]
    if errors:
        raise RequestValidationError(errors)


def admit_sweep(cells: list[Cell], grid_keys: list[str], settings: Settings) -> None:
    """Raise a 422 listing every cell of a sweep this server refuses."""
    found = refusals([cell.config for cell in cells], settings)
    errors = [
        {"loc": blame(r.path, grid_keys), "msg": cell.prefix + r.msg, "type": r.type}
        for cell, refusals_of_cell in zip(cells, found, strict=True)
        for r in refusals_of_cell
    ]
    if errors:
        raise RequestValidationError(errors)
