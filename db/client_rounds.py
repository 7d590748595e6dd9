"""A run's per-round client records at full resolution, a page of rounds at a time: who
was available, who was selected, the aggregation weights, and each client's staleness
(u − L_k(u), as `db.marks` defines it). The staleness of the page's first round starts
from the nearest staleness mark at or before it, carried over the rounds in between, so
a page deep into a long run reads at most `MARK_EVERY` − 1 rounds more than it returns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.marks import unpack_mark
from db.matrices import fetch_all
from db.models import RoundClients, StalenessMark
from db.packing import id_dtype, unpack_available, unpack_weights

FIELDS = ("available", "selected", "weights", "staleness")


@dataclass(frozen=True)
class ClientRound:
    round: int
    available: list[int] | None
    selected: list[int] | None
    weights: dict[int, float] | None
    staleness: list[int] | None


def client_rounds(
    session: Session,
    run_id: int,
    n_clients: int,
    after: int,
    limit: int,
    fields: Iterable[str] = FIELDS,
) -> list[ClientRound]:
    """Up to `limit` recorded rounds after `after`, with the `fields` asked for (the
    others None)."""
    wanted = set(fields)
    r = RoundClients
    rows = fetch_all(
        session,
        select(r.round, r.available, r.selected, r.weights)
        .where(r.run_id == run_id, r.round > after)
        .order_by(r.round)
        .limit(limit),
    )
    if not rows:
        return []
    width = id_dtype(n_clients)
    selected = [np.frombuffer(row[2], dtype=width).astype(np.int64) for row in rows]
    available = (
        unpack_available([row[1] for row in rows], n_clients) if "available" in wanted else None
    )
    last = (
        _last_before(session, run_id, n_clients, int(rows[0][0])) if "staleness" in wanted else None
    )
    out = []
    for i, (round_, _, _, weights) in enumerate(rows):
        stale = None
        if last is not None:
            last[selected[i]] = round_
            stale = (round_ - last).tolist()
        out.append(
            ClientRound(
                round=int(round_),
                available=None if available is None else np.flatnonzero(available[i]).tolist(),
                selected=selected[i].tolist() if "selected" in wanted else None,
                weights=unpack_weights(weights, n_clients) if "weights" in wanted else None,
                staleness=stale,
            )
        )
    return out


def _last_before(session: Session, run_id: int, n_clients: int, first: int) -> np.ndarray:
    """L_k(first − 1): each client's last selection before round `first` (−1 if none),
    from the latest mark at or before it and the selections since."""
    m = StalenessMark
    mark = session.execute(
        select(m.round, m.total, m.last)
        .where(m.run_id == run_id, m.round <= first)
        .order_by(m.round.desc())
        .limit(1)
    ).first()
    if mark is None:
        start, last = 0, np.full(n_clients, -1, dtype=np.int64)
    else:
        start, last = int(mark.round), unpack_mark(mark.total, mark.last)[1].copy()
    r = RoundClients
    rows = fetch_all(
        session,
        select(r.round, r.selected)
        .where(r.run_id == run_id, r.round >= start, r.round < first)
        .order_by(r.round),
    )
    width = id_dtype(n_clients)
    for round_, blob in rows:
        last[np.frombuffer(blob, dtype=width).astype(np.int64)] = round_
    return last
