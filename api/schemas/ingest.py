"""External runs: what FL code outside the engine sends (the run, its rounds, its end)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal, Self

import numpy as np
from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    StringConstraints,
    model_validator,
)

from api.storable import NO_NUL
from db.packing import WEIGHT_DTYPE
from db.status import Status
from fedwatch.limits import INT32_MAX, METRIC_NAME_MAX

# External runs: a staleness mark holds 12 bytes per client (simulated runs, whose memory
# is estimated before they are admitted, go to 10⁶).
MAX_CLIENTS = 100_000
# A metric's name: the key of its stored series (`metric_chunks.name`).
MetricName = Annotated[
    str, StringConstraints(pattern=rf"^[A-Za-z0-9_.\-/]{{1,{METRIC_NAME_MAX}}}$")
]
ClientId = Annotated[int, Field(ge=0, le=INT32_MAX)]  # also a JSON object's key (a string)
# `true` and "5" are no numbers (lax parsing would read them as 1 and 5).
StrictInt = Annotated[int, Strict()]
Id = Annotated[int, Field(ge=0, le=INT32_MAX), Strict()]
Number = Annotated[float, Strict()]
# Weights are stored as float32 (`db.packing.WEIGHT_DTYPE`): a larger one would read as inf.
WEIGHT_MAX = float(np.finfo(WEIGHT_DTYPE).max)
Weight = Annotated[float, Strict(), Field(ge=-WEIGHT_MAX, le=WEIGHT_MAX)]
# How far ahead of the server's clock a client's may be: a time later than now plus this
# is refused (a time sent by a machine whose clock is wrong, or no time of this run).
WALL_CLOCK_SKEW = timedelta(minutes=5)


def _past(when: datetime) -> datetime:
    """A time of the run, in UTC: not in the future (beyond WALL_CLOCK_SKEW)."""
    if when > datetime.now(UTC) + WALL_CLOCK_SKEW:
        raise ValueError(f"is in the future (more than {WALL_CLOCK_SKEW} past the server's clock)")
    return when.astimezone(UTC)


def _rfc3339(when: object) -> object:
    """Only a date-time string (RFC 3339, as the schema says), never a number or a bare
    numeral that pydantic would read as seconds since 1970."""
    if isinstance(when, datetime):
        return when
    if not isinstance(when, str):
        raise ValueError("must be a date-time string with its time zone (RFC 3339)")
    try:
        datetime.fromisoformat(when)
    except ValueError:
        raise ValueError("must be a date-time string with its time zone (RFC 3339)") from None
    return when


PastTime = Annotated[AwareDatetime, BeforeValidator(_rfc3339), AfterValidator(_past)]


class ExternalRunCreate(BaseModel):
    """An external run: its rounds come through `POST /api/runs/{id}/rounds`."""

    model_config = ConfigDict(extra="forbid")

    source: Literal["external"] = Field(description="Declares an external run.")
    name: str = Field(min_length=1, max_length=400, pattern=NO_NUL)
    config: dict[str, Any] = Field(
        default_factory=dict,
        description="Free-form JSON, stored as it is. String values of `algorithm`, "
        "`dataset` and `availability` and `seed` (an integer) fill the run's columns of "
        "the same name; a run config's sections fill them too (`algorithm.name`, "
        "`data.dataset`, `availability.kind`, `eval.target_acc`: a run of the engine, "
        "recorded by the CLI).",
    )
    n_clients: StrictInt = Field(
        ge=1, le=MAX_CLIENTS, description="Client ids lie in [0, n_clients)."
    )
    rounds: StrictInt | None = Field(
        None, ge=1, le=INT32_MAX, description="Rounds expected, for the progress; unknown if unset."
    )
    experiment: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        pattern=NO_NUL,
        description="Name of the experiment the run belongs to (created when new).",
    )
    availability_period: StrictInt | None = Field(
        None,
        ge=1,
        le=INT32_MAX,
        description="Rounds after which the run's availability repeats (a diurnal cycle); "
        "its summary's `period_avg_param` is then the mean of `param` over the last period, "
        "as a simulated run's. Unset: no period, and no such value.",
    )
    notes: str = Field("", max_length=20_000, pattern=NO_NUL)
    created_at: PastTime | None = Field(
        None,
        description="When the run was created, with its time zone (a run uploaded later "
        "keeps it); default: now.",
    )
    started_at: PastTime | None = Field(
        None, description="When it started, not before `created_at`; default: `created_at`."
    )

    @model_validator(mode="after")
    def _in_order(self) -> Self:
        if self.created_at and self.started_at and self.started_at < self.created_at:
            raise ValueError("started_at is before created_at")
        return self


class RoundIn(BaseModel):
    """One round of an external run."""

    model_config = ConfigDict(extra="forbid")

    round: Annotated[int, Strict()] = Field(
        ge=0, le=INT32_MAX - 1, description="0-based round number."
    )
    metrics: dict[MetricName, Number | None] = Field(
        default_factory=dict,
        max_length=200,
        description="Scalars (test_acc, train_loss, ...); null for a value that was not finite.",
    )
    available: list[Id] | None = Field(
        None, description="Ids of the clients available this round (default: the selected)."
    )
    selected: list[Id] | None = Field(
        None, description="Ids of the clients selected (default: those with a weight)."
    )
    weights: dict[ClientId, Weight] | None = Field(
        None,
        description="Aggregation weight of each client whose update entered the model "
        "(within ±3.4e38: stored as float32).",
    )
    client_acc: list[Number | None] | None = Field(
        None, description="Per-client accuracy, one value per client (null where unknown)."
    )
    wall_s: Number = Field(0.0, ge=0, description="Seconds since the run started.")


class RoundsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rounds: list[RoundIn] = Field(
        min_length=1, description="In increasing round order; at most FEDWATCH_INGEST_MAX_ROUNDS."
    )


class RoundsStored(BaseModel):
    """What a batch did: rounds newly stored and rounds already stored identically."""

    stored: int
    unchanged: int
    rounds_done: int


class FinishIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal[Status.SUCCEEDED, Status.FAILED] = Status.SUCCEEDED
    message: str | None = Field(None, max_length=20_000, description="Why it failed.")
    finished_at: PastTime | None = Field(
        None,
        description="When the run ended, with its time zone, not before it started "
        "(a run uploaded later keeps it); default: now.",
    )
