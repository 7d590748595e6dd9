"""The client timeline of a run in simulated time: per client (in rows of clients) and
per time bucket, what it was doing, downsampled like the rasters.

A cell holds the most telling state of its clients in its span: an update's outcome
where one arrived or was given up (dropped over partial over kept), else uploading,
else training (download and local steps), else online (available at a round that
overlaps the bucket), else offline. Read from the rounds' packed timelines and
availability bitmaps, and the rounds' ends (`sim_time_s`). An async run's server
update holds the clients that arrived or stopped since the previous one, each training
from the moment it began (`timeline_begin`), often before that update's window.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.matrices import fetch_all
from db.metric_values import full_series
from db.models import RoundClients
from db.packing import unpack_available, unpack_timeline

STATE_COLOURS = (
    ("offline", "#f2f2f2"),
    ("online", "#c6dbef"),
    ("training", "#6baed6"),
    ("uploading", "#fdae6b"),
    ("kept", "#2ca02c"),
    ("partial", "#bcbd22"),
    ("dropped", "#d62728"),
)
"""The states a cell can hold, in the order its index counts, each with the colour the
run page paints it (`GET /api/meta`)."""
STATES = tuple(name for name, _ in STATE_COLOURS)
ONLINE, TRAINING, UPLOADING, KEPT, PARTIAL, DROPPED = range(1, 7)
OUTCOMES = {1: KEPT, 2: PARTIAL, 3: DROPPED, 4: DROPPED}  # worker.engine.system.timing's


@dataclass
class Timeline:
    """`states[row][bucket]` indexes `STATES`; row i holds clients from `clients[i]`,
    bucket j spans `times[j]` to `times[j] + width_s` seconds."""

    clients: list[int]
    times: list[float]
    width_s: float
    states: list[list[int]]


@dataclass
class Spans:
    """Where intervals fall on the grid: the buckets [first, last] of each, and its row."""

    row: np.ndarray
    first: np.ndarray
    last: np.ndarray


def client_timeline(
    session: Session,
    run_id: int,
    n_clients: int,
    max_clients: int,
    max_buckets: int,
    start_s: float = 0.0,
    end_s: float | None = None,
) -> Timeline:
    """The timeline of the rounds that overlap [start_s, end_s] (end: the last round's)."""
    rounds, ends = _round_ends(session, run_id)
    width_clients = max(1, -(-n_clients // max_clients))
    row_starts = np.arange(0, n_clients, width_clients)
    stop = float(ends[-1]) if end_s is None and len(ends) else (end_s or 0.0)
    if not len(rounds) or stop <= start_s:
        return Timeline(row_starts.tolist(), [], 0.0, [[] for _ in row_starts])
    width = (stop - start_s) / max_buckets
    grid = Grid(start_s, width, max_buckets, len(row_starts), width_clients)
    lo = int(np.searchsorted(ends, start_s, side="right"))
    hi = int(np.searchsorted(ends, stop, side="left"))
    wanted = rounds[lo : hi + 1]
    if not len(wanted):  # no round overlaps the window (after the run's end, say)
        return Timeline(row_starts.tolist(), [], 0.0, [[] for _ in row_starts])
    r = RoundClients
    rows = fetch_all(
        session,
        select(r.round, r.available, r.timeline, r.timeline_begin)
        .where(r.run_id == run_id, r.round >= int(wanted[0]), r.round <= int(wanted[-1]))
        .where(r.timeline.is_not(None))
        .order_by(r.round),
    )
    if not rows:
        return Timeline(row_starts.tolist(), [], 0.0, [[] for _ in row_starts])
    by_round = dict(zip(rounds.tolist(), ends.tolist(), strict=True))
    states = grid.fill(rows, by_round, n_clients)
    times = (start_s + width * np.arange(max_buckets)).tolist()
    return Timeline(row_starts.tolist(), times, width, states.tolist())


def _round_ends(session: Session, run_id: int) -> tuple[np.ndarray, np.ndarray]:
    """The rounds that recorded simulated time and their ends, in round order."""
    rounds, values = full_series(session, run_id, "sim_time_s")
    kept = [(t, v) for t, v in zip(rounds, values, strict=True) if v is not None]
    return np.array([t for t, _ in kept], dtype=np.int64), np.array([v for _, v in kept])


@dataclass
class Grid:
    start: float
    width: float
    buckets: int
    rows: int
    clients_per_row: int

    def spans(self, clients: np.ndarray, begin: np.ndarray, end: np.ndarray) -> Spans:
        """The buckets each client's interval [begin, end) overlaps, clipped to the grid
        (none, last < first, for an empty interval or one outside the grid)."""
        first = np.floor((begin - self.start) / self.width)
        last = np.ceil((end - self.start) / self.width) - 1
        empty = (end <= begin) | (last < 0) | (first >= self.buckets)
        first = np.clip(first, 0, self.buckets - 1).astype(np.int64)
        last = np.where(empty, first - 1, np.clip(last, 0, self.buckets - 1)).astype(np.int64)
        return Spans(clients // self.clients_per_row, first, last)

    def points(self, clients: np.ndarray, at: np.ndarray) -> Spans:
        """The bucket of each instant (the last bucket holds the grid's end)."""
        bucket = np.floor((at - self.start) / self.width)
        outside = (bucket < 0) | (at > self.start + self.width * self.buckets)
        bucket = np.clip(bucket, 0, self.buckets - 1).astype(np.int64)
        return Spans(clients // self.clients_per_row, bucket, np.where(outside, bucket - 1, bucket))

    def covered(self, spans: Spans) -> np.ndarray:
        """(rows, buckets) bool: cells some interval covers (a running count of the
        intervals open at each bucket, from their starts and ends)."""
        size = self.rows * (self.buckets + 1)
        valid = spans.last >= spans.first
        base = spans.row[valid] * (self.buckets + 1)
        opened = np.bincount(base + spans.first[valid], minlength=size)
        closed = np.bincount(base + spans.last[valid] + 1, minlength=size)
        counts = np.cumsum((opened - closed).reshape(self.rows, -1), axis=1)
        return counts[:, : self.buckets] > 0

    def fill(
        self, rows: list[tuple[int, bytes, bytes, bytes | None]], ends: dict[int, float], n: int
    ) -> np.ndarray:
        states = np.zeros((self.rows, self.buckets), dtype=np.int64)
        if not rows:
            return states
        timelines = [unpack_timeline(row[2], n, row[3]) for row in rows]
        starts = np.array([t.start for t in timelines])
        round_ends = np.array(
            [ends.get(int(row[0]), t.start) for row, t in zip(rows, timelines, strict=True)]
        )
        available = unpack_available([row[1] for row in rows], n)
        which, clients = np.nonzero(available)
        online = self.spans(clients, starts[which], round_ends[which])
        counts = np.array([len(t.ids) for t in timelines])
        ids = np.concatenate([t.ids for t in timelines]).astype(np.int64)
        base = np.repeat(starts, counts)
        began = base + np.concatenate([t.begin for t in timelines])
        compute = base + np.concatenate([t.compute for t in timelines])
        end = base + np.concatenate([t.end for t in timelines])
        outcome = np.concatenate([t.outcome for t in timelines])
        np.maximum(states, ONLINE * self.covered(online), out=states)
        np.maximum(states, TRAINING * self.covered(self.spans(ids, began, compute)), out=states)
        uploads = self.spans(ids, compute, end)
        np.maximum(states, UPLOADING * self.covered(uploads), out=states)
        for code, state in OUTCOMES.items():
            marks = outcome == code
            at = self.points(ids[marks], end[marks])
            np.maximum(states, state * self.covered(at), out=states)
        return states
