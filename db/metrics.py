"""Per-round scalars: bucketed downsampling (min, max, last) and raw incremental rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from db.models import RoundClients, RoundMetric


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
    labelled with its last round."""
    series = {name: Series() for name in names}
    if not names or end < start:
        return series
    m = RoundMetric
    width = bucket_width(start, end, max_points)
    bucket = (m.round - start) // width
    agg = (
        select(
            m.name,
            func.min(m.value).label("lo"),
            func.max(m.value).label("hi"),
            func.max(m.round).label("last_round"),
        )
        .where(m.run_id == run_id, m.name.in_(names), m.round.between(start, end))
        .group_by(m.name, bucket)
        .subquery()
    )
    last = (
        select(m.value)
        .where(m.run_id == run_id, m.name == agg.c.name, m.round == agg.c.last_round)
        .scalar_subquery()
    )
    rows = session.execute(
        select(agg.c.name, agg.c.last_round, agg.c.lo, agg.c.hi, last).order_by(
            agg.c.name, agg.c.last_round
        )
    )
    for name, round_, lo, hi, value in rows:
        s = series[name]
        s.round.append(round_)
        s.min.append(lo)
        s.max.append(hi)
        s.last.append(value)
    return series


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
