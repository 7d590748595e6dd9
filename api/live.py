"""The live feed behind every open event stream of the process.

One poller reads, every `sse_poll_s`, the status of each watched run and the rounds
recorded since its last read, once per run whatever the number of viewers, encodes each
round's event and the status's once for all of them, and wakes the streams; a waiting
stream holds no database connection and no thread. What a woken stream sends (the
rounds after its position, and the status if it changed) is joined and encoded once per
position and read, and shared by every stream at that position, as one write: with a
hundred viewers in step, a read costs the event loop one join and a hundred writes, not
a hundred joins, encodings and two hundred writes. A stream that joins late reads the
history it lacks itself, a batch at a time, at most `HISTORY_READERS` such reads at
once. `close` ends every stream (server shutdown).
"""

from __future__ import annotations

import asyncio
import bisect
import json
import logging
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from api.schemas.runs import RunItem, without_config
from api.shown import shown_run
from db.metric_values import last_round, round_rows
from db.models import Run
from db.status import FINAL

BATCH = 500  # rounds per event burst and per history read
CACHE = 2000  # latest rounds kept per watched run, for the viewers that follow it
HISTORY_READERS = 4
KEEPALIVE_S = 15.0  # a comment line this often: a vanished viewer is noticed

log = logging.getLogger(__name__)


def event(kind: str, data: dict[str, Any], event_id: int | None = None) -> str:
    head = f"event: {kind}\n" + (f"id: {event_id}\n" if event_id is not None else "")
    return f"{head}data: {json.dumps(data, separators=(',', ':'))}\n\n"


def round_events(rows: list[dict[str, Any]]) -> list[tuple[int, bytes]]:
    return [(row["round"], event("round", row, row["round"]).encode()) for row in rows]


@dataclass(frozen=True)
class Chunk:
    """What a stream sends in one write: `rounds` rounds' events, the last `last` (the
    stream's position afterwards), and the status's event where asked."""

    last: int
    rounds: int
    data: bytes


def joined(rows: list[tuple[int, bytes]], after: int, status_event: bytes) -> Chunk:
    """The rounds `rows` (after `after`) and then `status_event`, as one chunk."""
    last = rows[-1][0] if rows else after
    return Chunk(last, len(rows), b"".join([*(text for _, text in rows), status_event]))


@dataclass
class Watch:
    """What the poller knows of one watched run."""

    viewers: int = 0
    status: dict[str, Any] | None = None  # `RunItem` as JSON; None before the first read
    status_event: bytes = b""  # `status` encoded once for all viewers
    gone: bool = False
    last: int = -1  # highest round read
    # The latest rounds read, each with its event encoded once for all viewers.
    rows: list[tuple[int, bytes]] = field(default_factory=list)
    # Since the last read: the chunk sent from each position (with the status or without),
    # joined once for every viewer there.
    chunks: dict[tuple[int, bool], Chunk] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def rows_after(self, after: int) -> list[tuple[int, bytes]] | None:
        """Up to `BATCH` cached rounds after `after`; None if the cache does not reach
        back that far (the stream reads them itself)."""
        if after >= self.last:
            return []
        if not self.rows or self.rows[0][0] > after + 1:
            return None
        start = bisect.bisect_right(self.rows, after, key=lambda row: row[0])
        return self.rows[start : start + BATCH]

    def chunk(self, after: int, with_status: bool) -> Chunk | None:
        """The cached rounds after `after` (`rows_after`), then the status's event if
        `with_status`, as one chunk, the same object for every viewer at `after` until
        the next read; None if the cache does not reach back to `after`."""
        key = (after, with_status)
        found = self.chunks.get(key)
        if found is None:
            rows = self.rows_after(after)
            if rows is None:
                return None
            found = joined(rows, after, self.status_event if with_status else b"")
            self.chunks[key] = found
        return found

    def update(self, status: dict[str, Any] | None, rows: list[dict[str, Any]], last: int) -> None:
        if status is None:
            self.gone = True
        elif status != self.status or rows:
            self.status = status
            self.status_event = event("status", status).encode()
            self.rows = (self.rows + round_events(rows))[-CACHE:]
            self.last = max(self.last, last)
            self.chunks = {}
        else:
            return
        woken, self.changed = self.changed, asyncio.Event()
        woken.set()


class LiveFeed:
    def __init__(self, sessions: sessionmaker[Session], poll_s: float, stall_s: float) -> None:
        self.sessions = sessions
        self.poll_s = poll_s
        self.stall_s = stall_s
        self.watches: dict[int, Watch] = {}
        self.closed = False
        self.wake = asyncio.Event()
        self.history = asyncio.Semaphore(HISTORY_READERS)
        self.loop: asyncio.AbstractEventLoop | None = None

    async def run(self) -> None:
        """The poller; runs until `close`."""
        self.loop = asyncio.get_running_loop()
        while not self.closed:
            if self.watches:
                await self._poll()
            self.wake.clear()
            with anyio.move_on_after(self.poll_s if self.watches else math.inf):
                await self.wake.wait()

    async def _poll(self) -> None:
        positions = {run_id: w.last for run_id, w in self.watches.items()}
        fresh = {run_id for run_id, w in self.watches.items() if w.status is None}
        try:
            read = await anyio.to_thread.run_sync(self._read, positions, fresh)
        except Exception:
            log.exception("live feed: reading the watched runs failed; retrying")
            return
        for run_id, (status, rows, last) in read.items():
            if run_id in self.watches:
                self.watches[run_id].update(status, rows, last)

    def close(self) -> None:
        """End every stream and the poller (in the event loop)."""
        self.closed = True
        self.wake.set()
        for watch in self.watches.values():
            watch.update(None, [], watch.last)

    def close_soon(self) -> None:
        """`close` from any thread or a signal handler."""
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.close)

    def _read(
        self, positions: dict[int, int], fresh: set[int]
    ) -> dict[int, tuple[dict[str, Any] | None, list[dict[str, Any]], int]]:
        """Each watched run's status and the rounds after its position (a new watch
        starts at the run's last round: its viewers read the history themselves)."""
        out: dict[int, tuple[dict[str, Any] | None, list[dict[str, Any]], int]] = {}
        with self.sessions() as session:
            runs = {r.id: r for r in session.scalars(select(Run).where(Run.id.in_(positions)))}
            for run_id, after in positions.items():
                run = runs.get(run_id)
                if run is None:
                    out[run_id] = (None, [], after)
                    continue
                item = without_config(shown_run(RunItem, run, self.stall_s))
                status = item.model_dump(mode="json")
                if run_id in fresh:
                    last = last_round(session, run_id)
                    out[run_id] = (status, [], -1 if last is None else last)
                    continue
                new_rounds = run.rounds_done - 1 > after
                rows = round_rows(session, run_id, after, CACHE) if new_rounds else []
                out[run_id] = (status, rows, rows[-1]["round"] if rows else after)
        return out

    def _read_history(self, run_id: int, after: int) -> list[tuple[int, bytes]]:
        with self.sessions() as session:
            return round_events(round_rows(session, run_id, after, BATCH))

    async def stream(self, run_id: int, after: int) -> AsyncIterator[bytes]:
        """Rounds after `after` (the Last-Event-ID), then each new one, and the run's
        status on every change; ends once the run is final and every round was sent,
        when the run is deleted, or at `close`."""
        watch = self.watches.setdefault(run_id, Watch())
        watch.viewers += 1
        self.wake.set()
        shown: tuple[str, int] | None = None
        try:
            while not self.closed:
                changed, status, status_event = watch.changed, watch.status, watch.status_event
                if watch.gone:
                    return
                if status is None:
                    await changed.wait()
                    continue
                fresh = (status["status"], status["rounds_done"]) != shown
                part = watch.chunk(after, fresh)
                if part is None:  # behind the cache: this stream reads its history
                    async with self.history:
                        rows = await anyio.to_thread.run_sync(self._read_history, run_id, after)
                    part = joined(rows, after, status_event if fresh else b"")
                if part.data:
                    yield part.data
                after = part.last
                if fresh:
                    shown = (status["status"], status["rounds_done"])
                if part.rounds == BATCH:
                    continue
                if status["status"] in FINAL and after >= watch.last:
                    return
                with anyio.move_on_after(KEEPALIVE_S) as waited:
                    await changed.wait()
                if waited.cancelled_caught:
                    yield b": keepalive\n\n"
        finally:
            watch.viewers -= 1
            if watch.viewers == 0 and self.watches.get(run_id) is watch:
                del self.watches[run_id]
