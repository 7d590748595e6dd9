"""Expand an experiment into its run configs, validating every one before any is created."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from api.errors import with_field_path
from worker.engine import ConfigError, RunConfig, current, run_config_for, set_path


@dataclass
class Cell:
    """One run of the sweep: its grid assignment (the cell) and seed."""

    label: str
    seed: int
    config: RunConfig

    @property
    def prefix(self) -> str:
        """What an error about this cell starts with."""
        return _prefix(self.label, self.seed)


def _prefix(label: str, seed: int) -> str:
    return f"{label}, seed={seed}: ".lstrip(", ")


class SweepInvalid(Exception):
    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(f"{len(errors)} invalid configurations")
        self.errors = errors


def blame(
    loc: tuple[Any, ...], keys: list[str], cell: tuple[int, dict[str, Any]] | None = None
) -> list[Any]:
    """Blame the grid key the error's field lies under, else the setting of the explicit
    cell (index, settings) it lies under, else the base config."""
    dotted = ".".join(str(p) for p in loc)

    def under(key: str) -> bool:
        return dotted == key or dotted.startswith(key + ".")

    for key in keys:
        if under(key):
            return ["body", "grid", key]
    if cell is not None:
        for key in cell[1]:
            if under(key):
                return ["body", "cells", cell[0], "set", key]
    return ["body", "base", *loc]


def _label(assignment: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in assignment.items())


def expand(
    base: dict[str, Any],
    grid: dict[str, list[Any]],
    seeds: list[int],
    cells: list[tuple[str, dict[str, Any]]] | None = None,
) -> list[Cell]:
    """Every run of the experiment: each explicit cell (label, settings; none: one empty
    cell) × each combination of the grid × each seed."""
    keys = list(grid)
    errors: list[dict[str, Any]] = []
    for key in keys:
        if key == "seed" or not grid[key]:
            msg = "use `seeds` to sweep seeds" if key == "seed" else "needs at least one value"
            errors.append({"loc": ["body", "grid", key], "msg": msg, "type": "value_error"})
    if errors:
        raise SweepInvalid(errors)
    out: list[Cell] = []
    combinations = [
        (index, label, fixed, dict(zip(keys, values, strict=True)))
        for index, (label, fixed) in enumerate(cells or [("", {})])
        for values in itertools.product(*(grid[k] for k in keys))
    ]
    for index, cell_label, fixed, swept in combinations:
        assignment = {**fixed, **swept}
        label = ", ".join(x for x in (cell_label or _label(fixed), _label(swept)) if x)
        for seed in seeds:
            try:
                data = {**base, "seed": seed}
                for key, value in assignment.items():
                    data = set_path(data, key, value)
                out.append(Cell(label, seed, run_config_for(current()).model_validate(data)))
            except ConfigError as err:
                where = ["body", "cells", index] if cells else ["body", "grid"]
                errors.append({"loc": where, "msg": str(err), "type": "value_error"})
            except ValidationError as err:
                prefix = _prefix(label, seed)
                for e in map(with_field_path, err.errors()):
                    msg = str(e["msg"]).removeprefix("Value error, ")
                    loc = blame(tuple(e["loc"]), keys, (index, fixed) if cells else None)
                    errors.append({"loc": loc, "msg": prefix + msg, "type": e["type"]})
    if errors:
        raise SweepInvalid(errors)
    return out
