"""Per-round data: downsampled series, raw rows, client matrices."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class SeriesPublic(BaseModel):
    round: list[int]
    last: list[float | None]
    min: list[float | None]
    max: list[float | None]


class MetricsPublic(BaseModel):
    run_id: int
    series: dict[str, SeriesPublic]


class RoundsPublic(BaseModel):
    data: list[dict[str, Any]]


class MatrixPublic(BaseModel):
    clients: list[int]
    rounds: list[int]
    values: list[list[float]]


class ClientAccuracyPublic(BaseModel):
    round: int | None
    values: list[float | None] | None
