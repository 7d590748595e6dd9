"""Experiments: a base config swept over a grid of dotted keys and a list of seeds."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict

from api.storable import NO_NUL
from worker.engine import MAX_PATH_CHARS, MAX_SEED

MAX_RUNS = 500


def _integral(value: Any) -> Any:
    """3.0 is the integer 3 in JSON, as 3 is; `true` and "3" are no integers."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


Seed = Annotated[int, Field(ge=0, le=MAX_SEED), Strict(), BeforeValidator(_integral)]


class ExperimentCell(BaseModel):
    """One explicit cell: dotted settings applied together (a paper's method with its own
    learning rates), labelled for the comparison (default: the settings themselves)."""

    model_config = ConfigDict(extra="forbid")

    label: str = Field("", max_length=200, pattern=NO_NUL)
    set: dict[str, Any] = Field(
        min_length=1, description='Dotted key -> value, e.g. {"algorithm.name": "cafed"}.'
    )


class ExperimentCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200, pattern=NO_NUL)
    base: dict[str, Any] = Field(default_factory=dict, description="RunConfig JSON (partial).")
    grid: dict[str, list[Any]] = Field(
        default_factory=dict,
        description='Dotted key -> values, e.g. {"algorithm.name": ["fedavg", "fedlaavg"]}.',
    )
    cells: list[ExperimentCell] = Field(
        default_factory=list,
        max_length=100,
        description="Explicit cells, each crossed with the grid and the seeds (none: the "
        "grid alone).",
    )
    seeds: list[Seed] = Field(default_factory=lambda: [0], min_length=1, max_length=100)
    notes: str = Field("", max_length=20_000, pattern=NO_NUL)


class ExperimentProgress(BaseModel):
    """How far an experiment's runs are, together."""

    by_status: dict[str, int] = Field(description="How many of its runs are in each status.")
    rounds_done: int = Field(description="Rounds recorded, summed over its runs.")
    rounds_total: int = Field(description="Rounds asked for, summed over its runs.")
    rounds_per_s: float | None = Field(
        description="The mean measured speed of its runs (rounds per second of training time)."
    )
    eta_s: float | None = Field(
        description="Estimated seconds until its last active run finishes; null when none is "
        "active, or while one of them cannot be estimated yet."
    )


class ExperimentPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    base: dict[str, Any]
    grid: dict[str, list[Any]]
    cells: list[ExperimentCell]
    seeds: list[int]
    preset: str | None = Field(
        description="The paper preset this experiment reproduces (it has a report)."
    )
    run_ids: list[int]
    progress: ExperimentProgress
    created_at: datetime


class ExperimentsPublic(BaseModel):
    data: list[ExperimentPublic]
    count: int


class ReproduceRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seeds: list[Seed] | None = Field(
        None, min_length=1, max_length=100, description="Default: the paper's seeds."
    )
    variant: str | None = Field(
        None, pattern=NO_NUL, description="The preset's variant (default: its first)."
    )
    root: str | None = Field(
        None,
        pattern=NO_NUL,
        max_length=MAX_PATH_CHARS,
        description="`data.root` of every run (default: the preset's), as a run's config takes it.",
    )
