"""Per-round data: downsampled series, raw rows, client matrices."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class SeriesPublic(BaseModel):
    round: list[int]
    last: list[float | None]
    min: list[float | None]
    max: list[float | None]


class MetricsPublic(BaseModel):
    run_id: int
    series: dict[str, SeriesPublic]


class RoundsPublic(BaseModel):
    data: list[dict[str, Any]] = Field(
        description='Each recorded round: {"round": t, metric: value, ...} (null: a value '
        "that was not finite); a metric the round did not record is absent."
    )
    next_after: int | None = Field(
        None, description="Pass as `after` for the next page; null when this page is the last."
    )


class ClientRoundPublic(BaseModel):
    round: int
    available: list[int] | None = Field(None, description="Ids of the available clients.")
    selected: list[int] | None = Field(None, description="Ids of the selected clients.")
    weights: dict[int, float] | None = Field(
        None, description="Aggregation weight of each client that entered the update."
    )
    staleness: list[int] | None = Field(
        None, description="Every client's staleness this round (rounds since its last selection)."
    )


class ClientRoundsPublic(BaseModel):
    data: list[ClientRoundPublic]
    next_after: int | None = Field(
        None, description="Pass as `after` for the next page; null when this page is the last."
    )


class MatrixPublic(BaseModel):
    clients: list[int]
    rounds: list[int]
    values: list[list[float]]


class TimelinePublic(BaseModel):
    """Clients in simulated time (runs with a system model): `states[i][j]` indexes
    `labels` for the clients from `clients[i]` (to the next row's first) in the seconds
    from `times[j]` to `times[j] + width_s`: the most telling state of any of them."""

    clients: list[int]
    times: list[float]
    width_s: float
    labels: list[str]
    states: list[list[int]]


class StalenessDistributionPublic(BaseModel):
    """Cells (client, round) by staleness, exact, in bins of `width` rounds: bin i holds
    staleness `starts[i]` to `starts[i] + width − 1`. In an async run a round is a server
    update, so staleness counts model versions (`unit`)."""

    unit: Literal["rounds", "versions"] = Field(
        description="What a round of the run is: a round, or a server update (a version)."
    )
    rounds: int = Field(description="Rounds recorded; every client has one cell per round.")
    cells: int
    width: int
    starts: list[int]
    counts: list[int]
    mean: float | None
    max: int | None


class ClientAccuracyPublic(BaseModel):
    round: int | None
    values: list[float | None] | None
