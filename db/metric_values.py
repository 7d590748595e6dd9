"""Per-round scalars, read from the metric chunks (`db.series`): bucketed downsampling
(min, max, last), incremental rows, whole series and final values."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from db.models import MetricChunk, RoundClients
from db.series import CHUNK, unpack_chunks
from fedwatch.limits import INT32_MAX

EMPTY = (np.zeros(0, dtype=np.int64), np.zeros(0))


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


def _series(
    session: Session, run_id: int, names: list[str] | None, first: int, last: int
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(rounds, values) of each metric (all of them if `names` is None) over the chunks
    holding rounds [first, last]; NaN where the recorded value was not finite."""
    c = MetricChunk
    stmt = select(c.name, c.chunk, c.present, c.values).where(
        c.run_id == run_id, c.chunk.between(first // CHUNK, last // CHUNK)
    )
    if names is not None:
        stmt = stmt.where(c.name.in_(names))
    by_name: dict[str, list[tuple[int, bytes, bytes]]] = {}
    for name, chunk, present, packed in session.execute(stmt.order_by(c.name, c.chunk)):
        by_name.setdefault(name, []).append((chunk, present, packed))
    out = {}
    for name, rows in by_name.items():
        rounds, values = unpack_chunks(rows)
        keep = (rounds >= first) & (rounds <= last)
        out[name] = (rounds[keep], values[keep])
    return out


def downsample(
    session: Session, run_id: int, names: list[str], start: int, end: int, max_points: int
) -> dict[str, Series]:
    """Rounds [start, end] of each metric cut into at most `max_points` buckets of equal
    width; each bucket keeps its min, max and last value (spikes survive), and is
    labelled with its last round."""
    series = {name: Series() for name in names}
    if not names or end < start:
        return series
    width = bucket_width(start, end, max_points)
    for name, (rounds, values) in _series(session, run_id, names, start, end).items():
        _buckets(series[name], rounds, values, (rounds - start) // width)
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


def round_rows(
    session: Session, run_id: int, after: int, limit: int, names: list[str] | None = None
) -> list[dict[str, Any]]:
    """Up to `limit` recorded rounds after `after`, each as {"round", metric: value, ...}
    with the metrics `names` (all by default) it recorded."""
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
    for name, (at, values) in _series(session, run_id, names, rounds[0], rounds[-1]).items():
        for round_, value in zip(at.tolist(), _nullable(values), strict=True):
            if round_ in rows:
                rows[round_][name] = value
    return list(rows.values())


def full_series(session: Session, run_id: int, name: str) -> tuple[list[int], list[float | None]]:
    """Every recorded (round, value) of one metric, in round order."""
    rounds, values = _series(session, run_id, [name], 0, INT32_MAX).get(name, EMPTY)
    return rounds.tolist(), _nullable(values)


def final_values(session: Session, run_id: int, names: list[str]) -> dict[str, float | None]:
    """The value of each metric at the last round that recorded it."""
    c = MetricChunk
    latest = (
        select(c.name, func.max(c.chunk).label("chunk"))
        .where(c.run_id == run_id, c.name.in_(names))
        .group_by(c.name)
        .subquery()
    )
    rows = session.execute(
        select(c.name, c.chunk, c.present, c.values).join(
            latest, and_(c.run_id == run_id, c.name == latest.c.name, c.chunk == latest.c.chunk)
        )
    )
    out = {}
    for name, chunk, present, packed in rows:
        _, values = unpack_chunks([(chunk, present, packed)])
        out[name] = _nullable(values[-1:])[0]
    return out
