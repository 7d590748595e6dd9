"""Tunes: each method of a preset tuned with the same Optuna budget on a validation
split, then its best settings on fresh seeds (`worker.tune`)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from api.storable import NO_NUL
from worker.tune.space import KINDS, Kind
from worker.tune.study import PRUNERS, SAMPLERS, Pruner, Sampler


class Range(BaseModel):
    """One searched key as JSON: `{"kind": "log", "low": 0.001, "high": 1}`, or
    `{"kind": "choice", "choices": [0, 0.9]}`."""

    model_config = ConfigDict(extra="forbid")

    kind: Kind = Field(description=f"One of {', '.join(KINDS)}.")
    low: float | None = None
    high: float | None = None
    choices: list[Any] = Field(default_factory=list)

    def text(self, key: str) -> str:
        """As the command writes it: `client.lr=log:0.001:1`."""
        if self.kind == "choice":
            return f"{key}=choice:{','.join(json.dumps(c) for c in self.choices)}"
        low, high = ("" if v is None else repr(v) for v in (self.low, self.high))
        return f"{key}={self.kind}:{low}:{high}"


class TuneCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field("", max_length=200, pattern=NO_NUL, description="Default: the preset's.")
    preset: str = Field(max_length=100, description="Its config and comparison set.")
    methods: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="Methods of the preset's comparison set, or algorithm names "
        "(none: the whole set).",
    )
    space: list[str] | dict[str, Range] = Field(
        min_length=1,
        description='As the command writes it, ["client.lr=log:1e-3:1", '
        '"client.local_steps=int:1:5", "client.momentum=choice:0,0.9"], or as JSON, '
        '{"client.lr": {"kind": "log", "low": 0.001, "high": 1}}.',
    )
    trials: int = Field(20, ge=1, le=500, description="Finished trials a method.")
    seeds: int = Field(3, ge=1, le=50, description="Fresh final seeds a method.")
    objective: str = Field("final_val_acc", description="A validation summary value.")
    validation: float = Field(0.2, gt=0, lt=1, description="Share held out for tuning.")
    sampler: Sampler = Field("tpe", description=f"One of {', '.join(SAMPLERS)}.")
    sampler_seed: int = Field(0, ge=0)
    grid_points: int = Field(5, ge=2, le=100)
    pruner: Pruner = Field("median", description=f"One of {', '.join(PRUNERS)}.")
    prune_after: int = Field(5, ge=0, description="Finished trials before the median prunes.")
    parallel: int = Field(2, ge=1, le=64, description="Trials of a method in flight at once.")
    set: list[str] = Field(default_factory=list, max_length=100, description="key=value, all runs.")

    def space_texts(self) -> list[str]:
        if isinstance(self.space, dict):
            return [r.text(key) for key, r in self.space.items()]
        return list(self.space)


TrialState = Literal["running", "complete", "pruned", "failed", "waiting"]


class TrialPublic(BaseModel):
    method: str
    number: int
    state: TrialState
    value: float | None
    params: dict[str, Any]
    run_id: int | None
    intermediate: dict[int, float] = Field(description="Round → the objective's round metric.")
    pruned_at_round: int | None = None
    error: str | None = None


class MethodProgress(BaseModel):
    method: str
    budget: int
    complete: int
    pruned: int
    failed: int
    running: int
    best_value: float | None
    best_params: dict[str, Any] | None
    short: bool = Field(description="It finished fewer trials than the budget (flagged).")


class Dimension(BaseModel):
    """One axis of a parallel-coordinates plot (Plotly's `parcoords` dimension)."""

    label: str
    values: list[Any]


class TunePublic(BaseModel):
    id: int
    name: str
    status: Literal["tuning", "final", "done"]
    spec: dict[str, Any]
    created_at: datetime
    experiment_id: int | None = Field(description="The final comparison's experiment.")
    protocol: str = Field(description="The caption's first sentence.")
    direction: Literal["maximize", "minimize"] = Field(description="The objective's.")
    flags: list[str] = Field(
        description="Once its trials are over, a sentence for each method that finished "
        "fewer trials than the budget."
    )
    progress: list[MethodProgress]
    trials: list[TrialPublic]
    importances: dict[str, dict[str, float]] = Field(
        description="Method → key → importance (Optuna's default evaluator), for methods "
        "with enough completed trials (2 or more; with one searched key, 1)."
    )
    parallel: dict[str, list[Dimension]] = Field(
        description="Method → the completed trials as parallel-coordinates dimensions: each "
        "searched key, then the objective."
    )


class TunesPublic(BaseModel):
    data: list[TunePublic]
    count: int
