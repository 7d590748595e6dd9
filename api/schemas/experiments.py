"""Experiments: a base config swept over a grid of dotted keys and a list of seeds."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

MAX_RUNS = 500


class ExperimentCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    base: dict[str, Any] = Field(default_factory=dict, description="RunConfig JSON (partial).")
    grid: dict[str, list[Any]] = Field(
        default_factory=dict,
        description='Dotted key -> values, e.g. {"algorithm.name": ["fedavg", "fedlaavg"]}.',
    )
    seeds: list[int] = Field(default_factory=lambda: [0], min_length=1, max_length=100)
    notes: str = Field("", max_length=20_000)


class ExperimentPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    base: dict[str, Any]
    grid: dict[str, list[Any]]
    seeds: list[int]
    run_ids: list[int]
    created_at: datetime


class ExperimentsPublic(BaseModel):
    data: list[ExperimentPublic]
    count: int
