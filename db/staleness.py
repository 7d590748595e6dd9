"""The exact staleness distribution of a run: how many (client, round) cells have each
staleness, over every recorded round (the heatmap's buckets average cells away).

A client's staleness runs 0, 1, …, g − 1 between two of its selections g rounds apart,
and 0, 1, …, T − 1 − L after its last selection L, T rounds in; before its first
selection it counts from round −1 (gap L + 1, open length T + 1 if never selected), a
round that is not recorded. So with H[ℓ] the number of such segments of length ℓ (every
gap, and each client's open segment), the cells with staleness v number
Σ_{ℓ > v} H[ℓ], less one per client at v = 0 (the uncounted round −1).

The gaps come from the staleness marks' gap counts, and from the rounds after the last
mark (at most `MARK_EVERY` − 1); the last selections from that mark, carried forward.
Runs recorded before the marks held gap counts are counted from all their rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.marks import MARK_EVERY, unpack_gap_counts, unpack_mark
from db.matrices import fetch_all, selection_rows, settled_end
from db.models import RoundClients, StalenessMark


@dataclass
class Distribution:
    """`counts[v]`: the cells with staleness v, for v = 0 … max; `rounds` recorded."""

    counts: np.ndarray
    rounds: int

    @property
    def cells(self) -> int:
        return int(self.counts.sum())

    @property
    def mean(self) -> float | None:
        return float(np.arange(len(self.counts)) @ self.counts) / self.cells if self.cells else None

    @property
    def max(self) -> int | None:
        return len(self.counts) - 1 if self.cells else None

    def binned(self, max_bins: int) -> tuple[int, list[int], list[int]]:
        """(width, bin starts, counts) in at most `max_bins` bins of equal integer width."""
        width = max(1, -(-len(self.counts) // max_bins))
        padded = np.pad(self.counts, (0, -len(self.counts) % width))
        sums = padded.reshape(-1, width).sum(axis=1)
        return width, list(range(0, len(padded), width)), sums.tolist()


def distribution(session: Session, run_id: int, n_clients: int) -> Distribution:
    """Over the rounds whose staleness is known (`settled_end`)."""
    n_rounds = settled_end(session, run_id)
    if n_rounds == 0:
        return Distribution(np.zeros(0, np.int64), 0)
    mark = n_rounds - n_rounds % MARK_EVERY
    counted = _from_marks(session, run_id, n_clients, mark)
    lengths: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    last = np.full(n_clients, -1, np.int64)
    if counted is None:
        mark = 0
    else:
        lengths, weights, last = counted
    r = RoundClients
    rows = fetch_all(
        session,
        select(r.round, r.selected, r.gaps)
        .where(r.run_id == run_id, r.round >= mark, r.round < n_rounds)
        .order_by(r.round),
    )
    rounds, ids, gaps = selection_rows(rows, n_clients)
    np.maximum.at(last, ids, rounds)
    lengths += [gaps, n_rounds - last]
    weights += [np.ones(len(gaps), np.int64), np.ones(n_clients, np.int64)]
    segments = np.bincount(np.concatenate(lengths), weights=np.concatenate(weights))
    counts = np.cumsum(segments[::-1])[::-1][1:].astype(np.int64)  # Σ_{ℓ > v} H[ℓ]
    counts[0] -= n_clients
    return Distribution(np.trim_zeros(counts, "b"), n_rounds)


def _from_marks(
    session: Session, run_id: int, n_clients: int, mark: int
) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray] | None:
    """The gap lengths and their counts of the selections before `mark`, and each
    client's last selection before it; None when a mark lacks its gap counts."""
    if mark == 0:
        return [], [], np.full(n_clients, -1, np.int64)
    m = StalenessMark
    rows = fetch_all(session, select(m.round, m.gaps).where(m.run_id == run_id, m.round <= mark))
    if len(rows) != mark // MARK_EVERY or any(gaps is None for _, gaps in rows):
        return None
    pairs = [unpack_gap_counts(bytes(gaps)) for _, gaps in rows]
    stored = session.execute(
        select(m.total, m.last).where(m.run_id == run_id, m.round == mark)
    ).one()
    _, last = unpack_mark(stored.total, stored.last)
    return [p[0] for p in pairs], [p[1] for p in pairs], last.copy()
