"""Per-round scalars: bucketed downsampling (min, max, last) and raw incremental rows."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from db.models import MetricChunk, RoundClients, RoundMetric
from db.series import CHUNK, unpack_chunks


@dataclass
class Series:
    round: list[int] = field(default_factory=list)
    last: list[float | None] = field(default_factory=list)
    min: list[float | None] = field(default_factory=list)
    max: list[float | None] = field(default_factory=list)


def last_round(session: Session, run_id: int) -> int | None:
    """The highest round recorded for the run (None before the first one lands)."""
    return session.scalar(select(func.max(RoundClients.round)).where(RoundClients.run_id == run_id))


def bucket_width(start: int, end: int, max_points: int) -> int:
    span = end - start + 1
    return max(1, -(-span // max_points))


def downsample(
    session: Session, run_id: int, names: list[str], start: int, end: int, max_points: int
) -> dict[str, Series]:
    """Rounds [start, end] of each metric cut into at most `max_points` buckets of equal
    width; each bucket keeps its min, max and last value (spikes survive), and is
    labelled with its last round. Read from the metric chunks (`db.series`)."""
    series = {name: Series() for name in names}
    if not names or end < start:
        return series
    c = MetricChunk
    rows = session.execute(
        select(c.name, c.chunk, c.present, c.values)
        .where(
            c.run_id == run_id,
            c.name.in_(names),
            c.chunk.between(start // CHUNK, end // CHUNK),
        )
        .order_by(c.name, c.chunk)
    ).all()
    width = bucket_width(start, end, max_points)
    for name in names:
        rounds, values = unpack_chunks((r[1], r[2], r[3]) for r in rows if r[0] == name)
        keep = (rounds >= start) & (rounds <= end)
        _buckets(series[name], rounds[keep], values[keep], (rounds[keep] - start) // width)
    return series


def _buckets(s: Series, rounds: np.ndarray, values: np.ndarray, bucket: np.ndarray) -> None:
    if not len(rounds):
        return
    firsts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    lasts = np.r_[firsts[1:], len(rounds)] - 1
    lo, hi = np.fmin.reduceat(values, firsts), np.fmax.reduceat(values, firsts)  # NaN: none
    s.round = rounds[lasts].tolist()
    s.last = _nullable(values[lasts])
    s.min = _nullable(lo)
    s.max = _nullable(hi)


def _nullable(values: np.ndarray) -> list[float | None]:
    return [None if math.isnan(v) else v for v in values.tolist()]


def round_rows(session: Session, run_id: int, after: int, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` rounds after `after`, each as {"round", metric: value, ...}."""
    rounds = list(
        session.scalars(
            select(RoundClients.round)
            .where(RoundClients.run_id == run_id, RoundClients.round > after)
            .order_by(RoundClients.round)
            .limit(limit)
        )
    )
    if not rounds:
        return []
    rows: dict[int, dict[str, Any]] = {r: {"round": r} for r in rounds}
    m = RoundMetric
    values = session.execute(
        select(m.round, m.name, m.value).where(
            m.run_id == run_id, m.round.between(rounds[0], rounds[-1])
        )
    )
    for round_, name, value in values:
        rows[round_][name] = value
    return list(rows.values())


def full_series(session: Session, run_id: int, name: str) -> tuple[list[int], list[float | None]]:
    """Every recorded (round, value) of one metric, in round order."""
    rows = session.execute(
        select(RoundMetric.round, RoundMetric.value)
        .where(RoundMetric.run_id == run_id, RoundMetric.name == name)
        .order_by(RoundMetric.round)
    ).all()
    return [r[0] for r in rows], [r[1] for r in rows]


def final_values(session: Session, run_id: int, names: list[str]) -> dict[str, float | None]:
    """The value of each metric at the last round that recorded it."""
    m = RoundMetric
    last = (
        select(m.name, func.max(m.round).label("r"))
        .where(m.run_id == run_id, m.name.in_(names))
        .group_by(m.name)
        .subquery()
    )
    rows = session.execute(
        select(m.name, m.value).join(
            last, and_(m.run_id == run_id, m.name == last.c.name, m.round == last.c.r)
        )
    )
    return {name: value for name, value in rows}
