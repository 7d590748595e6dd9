"""Client x round matrices (availability, selection, staleness), downsampled in buckets.

Availability and selection are loaded from the compact per-round records; staleness
from the staleness marks and the few rounds after them (see `staleness`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import ClauseElement, ColumnElement, func, literal_column, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from db.marks import MARK_EVERY, SelectionTally, carry, unpack_mark
from db.metric_values import last_round
from db.models import RoundClients, StalenessMark
from db.packing import PENDING_GAPS, id_dtype, unpack_acc, unpack_available, unpack_gaps


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


def fetch_all(session: Session, stmt: ClauseElement) -> list[Any]:
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
    rows = fetch_all(
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


def selection_tally(session: Session, run_id: int, n_clients: int) -> SelectionTally:
    """What the recorder and the ingest continue from: at the run's settled end T (see
    `settled_end`), each client's latest selection before T (−1 if none) and S_k(T). Read
    from the latest staleness mark and the rounds from it on (fewer than MARK_EVERY), so
    a long run costs no more to continue than a short one (an external run's every
    batch continues it)."""
    m = StalenessMark
    mark = session.execute(
        select(m.round, m.total, m.last).where(m.run_id == run_id).order_by(m.round.desc()).limit(1)
    ).first()
    if mark is None:
        tally = SelectionTally.empty(run_id, n_clients)
    else:
        total, last = unpack_mark(mark.total, mark.last)
        tally = SelectionTally(run_id, mark.round, last, total)
    rows = _settled_rows(session, run_id, tally.next_round)
    width = id_dtype(n_clients)
    selected = [np.frombuffer(row[1], dtype=width).astype(np.int64) for row in rows]
    tally.advance_many([int(row[0]) for row in rows], selected)  # its marks are stored
    return tally


def settled_end(session: Session, run_id: int) -> int:
    """The end T of the rounds whose staleness is known: every round before T is stored
    with its gaps (or counts as a round nobody took part in) and the marks up to T are
    written. A round stored from T on waits with `PENDING_GAPS` for the rounds before it
    (an external run's rounds arrive in any order). For a simulated run, and a finished
    external one, the round after the last one recorded (a finished external run's last
    mark may lie past it)."""
    m = StalenessMark
    mark = session.scalar(select(func.max(m.round)).where(m.run_id == run_id)) or 0
    rows = _settled_rows(session, run_id, mark)
    end = rows[-1][0] + 1 if rows else mark
    return min(end, last_recorded(session, run_id) + 1)


def _settled_rows(session: Session, run_id: int, mark: int) -> list[Any]:
    """(round, selected) of the rounds stored with their gaps from `mark` on: fewer than
    MARK_EVERY, unless a mark was lost (then an earlier one serves). The rounds missing
    in between count as rounds nobody took part in."""
    r = RoundClients
    settled = r.gaps != PENDING_GAPS  # a bound parameter: `fetch_all` writes literals
    stmt = select(r.round, r.selected).where(r.run_id == run_id, r.round >= mark, settled)
    return list(session.execute(stmt.order_by(r.round)))


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
    """Mean staleness per bucket (u − L_k(u) at round u, as the engine reports it), from
    the accumulated staleness at the column bounds: each bound reads the nearest
    staleness mark at or before it and carries it forward over the selections in
    between (`db.marks`), so a 70 000-round run reads a few hundred marks and at most
    MARK_EVERY − 1 rounds per bound, never its whole history. It covers the rounds whose
    staleness is known (`settled_end`)."""
    n_rounds = settled_end(session, run_id)
    grid = Grid.fit(n_clients, n_rounds, max_clients, max_rounds)
    bounds, starts = grid.round_bounds, grid.client_starts
    sizes = np.diff(np.append(starts, n_clients))
    wanted = sorted(set((bounds - bounds % MARK_EVERY).tolist()) - {0})
    marks = {0: (np.zeros(len(starts), dtype=np.int64), -sizes)}  # S = 0, L = −1
    if wanted:
        m = StalenessMark
        stmt = select(m.round, m.total, m.last).where(m.run_id == run_id, _one_of(m.round, wanted))
        for at, total, last in fetch_all(session, stmt):
            s, ell = unpack_mark(total, last)
            marks[at] = (np.add.reduceat(s, starts), np.add.reduceat(ell, starts))
    known = np.array(sorted(marks))
    base = known[np.searchsorted(known, bounds, side="right") - 1]  # nearest mark <= bound
    rounds, ids, gaps = _selections_from(session, run_id, n_clients, bounds, base, n_rounds)
    groups = ids // grid.client_width
    sums = np.empty((len(bounds), len(starts)), dtype=np.int64)
    for i, (t, at) in enumerate(zip(bounds.tolist(), base.tolist(), strict=True)):
        lo, hi = np.searchsorted(rounds, [at, t])
        events = (rounds[lo:hi], groups[lo:hi], gaps[lo:hi])
        sums[i] = carry(*marks[at], sizes, at, t, events)
    width = np.diff(bounds).astype(np.float64)
    return _matrix(grid, np.diff(sums, axis=0).T / np.outer(sizes, width))


def _selections_from(
    session: Session,
    run_id: int,
    n_clients: int,
    bounds: np.ndarray,
    base: np.ndarray,
    n_rounds: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(round, client, gap) of the selections in the rounds [base, bound) of each bound,
    in round order."""
    wanted = sorted(
        {u for lo, hi in zip(base.tolist(), bounds.tolist(), strict=True) for u in range(lo, hi)}
    )
    r = RoundClients
    rows = fetch_all(
        session,
        select(r.round, r.selected, r.gaps)
        .where(r.run_id == run_id, _one_of(r.round, wanted), r.round < n_rounds)
        .order_by(r.round),
    )
    return selection_rows(rows, n_clients)


def _one_of(column: InstrumentedAttribute[int], values: list[int]) -> ColumnElement[bool]:
    """`column IN (values)` for a long list of integers, written out in one go: as
    bound literals SQLAlchemy renders each one on its own, which cost a staleness query
    tens of milliseconds and enough garbage to set off full collections."""
    listed = ",".join(str(int(v)) for v in values) or "NULL"  # NULL: matches nothing
    return column.op("IN")(literal_column(f"({listed})"))


def selection_rows(rows: list[Any], n_clients: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of (round, selected, gaps) as per-selection arrays, in round order."""
    if not rows:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    rounds, selected, gap_blobs = zip(*rows, strict=True)
    ids = np.frombuffer(b"".join(selected), dtype=id_dtype(n_clients)).astype(np.int64)
    counts = np.fromiter(map(len, selected), np.int64, len(rows)) // id_dtype(n_clients).itemsize
    gaps = unpack_gaps(list(gap_blobs), counts).astype(np.int64)
    return np.repeat(np.array(rounds, dtype=np.int64), counts), ids, gaps


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
