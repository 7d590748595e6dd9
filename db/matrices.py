"""Client x round matrices (availability, selection, staleness), downsampled in buckets.

Loaded from the compact per-round records; staleness is derived from the selection
history and the gaps stored with it, without materialising the full client x round
grid (see `staleness`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import ClauseElement, select
from sqlalchemy.orm import Session

from db.metrics import last_round
from db.models import RoundClients
from db.packing import id_dtype, unpack_acc, unpack_available, unpack_gaps


@dataclass
class Grid:
    """Bucketing of n clients and R rounds into rows and columns of equal width."""

    n_clients: int
    n_rounds: int
    client_width: int
    round_width: int

    @classmethod
    def fit(cls, n_clients: int, n_rounds: int, max_clients: int, max_rounds: int) -> Grid:
        cw = max(1, -(-n_clients // max_clients))
        rw = max(1, -(-n_rounds // max_rounds))
        return cls(n_clients, n_rounds, cw, rw)

    @property
    def client_starts(self) -> np.ndarray:
        return np.arange(0, self.n_clients, self.client_width)

    @property
    def round_bounds(self) -> np.ndarray:
        """t_0 = 0 < t_1 < ... < t_m = R: column b covers rounds [t_b, t_{b+1})."""
        return np.append(np.arange(0, self.n_rounds, self.round_width), self.n_rounds)

    def cell_sizes(self) -> np.ndarray:
        clients = np.diff(np.append(self.client_starts, self.n_clients))
        rounds = np.diff(self.round_bounds)
        return np.outer(clients, rounds).astype(np.float64)


@dataclass
class Matrix:
    clients: list[int]
    rounds: list[int]
    values: list[list[float]]


def _matrix(grid: Grid, values: np.ndarray) -> Matrix:
    return Matrix(
        clients=grid.client_starts.tolist(),
        rounds=grid.round_bounds[:-1].tolist(),
        values=np.round(values, 6).tolist(),
    )


def _fetch(session: Session, stmt: ClauseElement) -> list[Any]:
    """All rows of a large read, straight from the driver: SQLAlchemy's per-row work
    would cost more than the query, and psycopg is asked for binary results (bytea as
    raw bytes instead of hex text)."""
    connection = session.connection()
    sql = str(stmt.compile(dialect=connection.dialect, compile_kwargs={"literal_binds": True}))
    dbapi: Any = connection.connection.dbapi_connection
    binary = connection.dialect.driver == "psycopg"
    cursor = dbapi.cursor(binary=True) if binary else dbapi.cursor()
    try:
        cursor.execute(sql)
        return list(cursor.fetchall())
    finally:
        cursor.close()


def _load(session: Session, run_id: int, column: str) -> tuple[np.ndarray, list[bytes]]:
    col = getattr(RoundClients, column)
    rows = _fetch(
        session,
        select(RoundClients.round, col)
        .where(RoundClients.run_id == run_id)
        .order_by(RoundClients.round),
    )
    return np.fromiter((r[0] for r in rows), np.int64, len(rows)), [r[1] for r in rows]


def _selection_events(
    session: Session, run_id: int, n_clients: int
) -> tuple[np.ndarray, np.ndarray]:
    """(round, client) of every selection, in round order."""
    rounds, blobs = _load(session, run_id, "selected")
    counts = np.fromiter((len(b) for b in blobs), np.int64, len(blobs))
    counts //= id_dtype(n_clients).itemsize
    clients = np.frombuffer(b"".join(blobs), dtype=id_dtype(n_clients))
    return np.repeat(rounds, counts), clients


def last_selections(session: Session, run_id: int, n_clients: int) -> tuple[int, np.ndarray]:
    """The last recorded round (−1 before the first) and the round of each client's
    latest selection up to it (−1 if never selected)."""
    rounds, blobs = _load(session, run_id, "selected")
    clients = np.frombuffer(b"".join(blobs), dtype=id_dtype(n_clients))
    counts = np.fromiter(map(len, blobs), np.int64, len(blobs)) // clients.itemsize
    last = np.full(n_clients, -1, dtype=np.int64)
    np.maximum.at(last, clients, np.repeat(rounds, counts))
    return int(rounds[-1]) if len(rounds) else -1, last


def availability(
    session: Session, run_id: int, n_clients: int, max_clients: int, max_rounds: int
) -> Matrix:
    rounds, blobs = _load(session, run_id, "available")
    # Sized from the rows read, not from a second query: rounds committed in between
    # (a live run) would reach past the data loaded.
    grid = Grid.fit(n_clients, int(rounds[-1]) + 1 if len(rounds) else 0, max_clients, max_rounds)
    if not len(rounds):
        return _matrix(grid, np.zeros((len(grid.client_starts), 0)))
    bits = unpack_available(blobs, n_clients)
    cols = np.searchsorted(rounds, grid.round_bounds[:-1])
    by_round = np.add.reduceat(bits, cols, axis=0, dtype=np.int64)
    counts = np.add.reduceat(by_round, grid.client_starts, axis=1).T
    return _matrix(grid, counts / grid.cell_sizes())


def selection(
    session: Session, run_id: int, n_clients: int, max_clients: int, max_rounds: int
) -> Matrix:
    rounds, clients = _selection_events(session, run_id, n_clients)
    n_rounds = last_recorded(session, run_id) + 1
    grid = Grid.fit(n_clients, n_rounds, max_clients, max_rounds)
    n_rows, n_cols = len(grid.client_starts), len(grid.round_bounds) - 1
    index = (clients // grid.client_width).astype(np.int64) * n_cols + rounds // grid.round_width
    counts = np.bincount(index, minlength=n_rows * n_cols).reshape(n_rows, n_cols)
    return _matrix(grid, counts / grid.cell_sizes())


def staleness(
    session: Session, run_id: int, n_clients: int, max_clients: int, max_rounds: int
) -> Matrix:
    """Mean staleness per bucket; staleness of client k at round u is u − L_k(u), with
    L_k(u) its last selection at or before u (−1 before the first one), as the engine
    reports it.

    L_k(u) = −1 + Σ_j g_j·[u ≥ e_j] over k's selections e_j with gaps g_j = e_j − e_{j−1}
    (e_0 = −1), so Σ_{u<t} L_k(u) = −t + H_k(t) with H_k(t) = Σ_{e_j<t} g_j (t − e_j).
    Only H at the column bounds is needed, from cumulative sums of g and g·e per column.
    The recorder stores each round's gaps next to its selected ids, so the selections
    are read in round order and summed column by column (each column's slice stays in
    cache): the cost is linear in the number of selections, with no sort by client.
    """
    rows = _fetch(
        session,
        select(RoundClients.round, RoundClients.selected, RoundClients.gaps)
        .where(RoundClients.run_id == run_id)
        .order_by(RoundClients.round),
    )
    round_list, selected, gap_blobs = zip(*rows, strict=True) if rows else ((), (), ())
    rounds = np.array(round_list, dtype=np.int64)
    grid = Grid.fit(n_clients, int(rounds[-1]) + 1 if len(rows) else 0, max_clients, max_rounds)
    ids = np.frombuffer(b"".join(selected), dtype=id_dtype(n_clients))
    counts = np.fromiter(map(len, selected), np.int64, len(rows)) // ids.itemsize
    gaps = unpack_gaps(list(gap_blobs), counts)
    bounds = grid.round_bounds
    n_rows, n_cols = len(grid.client_starts), len(bounds) - 1
    first_row = np.searchsorted(rounds, bounds)
    first_pick = np.append(0, np.cumsum(counts))[first_row]
    # Row c + 1 of w / we: sums of g / g·e over column c; cumulated, over all e < bound.
    w = np.zeros((n_cols + 1, n_rows))
    we = np.zeros((n_cols + 1, n_rows))
    for c in range(n_cols):
        picks = slice(first_pick[c], first_pick[c + 1])
        col_rows = slice(first_row[c], first_row[c + 1])
        groups = ids[picks] // grid.client_width
        g = gaps[picks].astype(np.float64)
        e = np.repeat(rounds[col_rows].astype(np.float64), counts[col_rows])
        w[c + 1] = np.bincount(groups, weights=g, minlength=n_rows)
        we[c + 1] = np.bincount(groups, weights=g * e, minlength=n_rows)
    h = (bounds[:, None] * np.cumsum(w, axis=0) - np.cumsum(we, axis=0)).T
    a, b = bounds[:-1], bounds[1:]
    width = (b - a).astype(np.float64)
    n_in_row = np.diff(np.append(grid.client_starts, n_clients)).astype(np.float64)
    mean = (a + b - 1) / 2 + 1 - np.diff(h, axis=1) / np.outer(n_in_row, width)
    return _matrix(grid, mean)


def last_recorded(session: Session, run_id: int) -> int:
    last = last_round(session, run_id)
    return -1 if last is None else last


def client_accuracy(session: Session, run_id: int) -> tuple[int | None, list[float | None] | None]:
    """The latest per-client accuracy vector, or (None, None) before the first one."""
    row = session.execute(
        select(RoundClients.round, RoundClients.client_acc)
        .where(RoundClients.run_id == run_id, RoundClients.client_acc.is_not(None))
        .order_by(RoundClients.round.desc())
        .limit(1)
    ).first()
    if row is None or row[1] is None:
        return None, None
    return row[0], unpack_acc(row[1])
