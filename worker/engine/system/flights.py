"""Asynchronous training on the clock: the clients in flight, and the events between
two server updates (`worker/engine/algorithms/asynchronous.py` for the contract).

Up to C clients train at once. Whenever slots are free (at a server update, and each
time a client arrives or stops) idle clients available at that moment start in them, on
the current model version, drawn by the algorithm's `start`. A client's work is timed
as a synchronous round's (`timing.py`), without a deadline: its window closes when its
session ends, and `client.partial_work` says what it then returns. Events are taken in
time order (ties by start order); a server update collects the next `need` updates to
arrive. Only the timing runs here: the updates themselves are trained when the server
update applies them, all at once, from the versions they started from.

Availability: a client may start during server update u when the round-based model
has it available in round u (and its session, where the system model gives sessions,
has it online then, in a session that does not end that instant: a client that stopped
as its session ended is not started again in it); once started it trains until it
arrives or its session ends.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import torch
from torch import Tensor

from worker.engine.masks import Available, ids_of
from worker.engine.system.clock import Clock
from worker.engine.system.timing import DROPPED

Work = Callable[[Tensor], tuple[np.ndarray, np.ndarray]]  # ids -> planned steps, samples
Start = Callable[[Available, int, torch.Generator], Tensor]  # (idle, free, gen) -> ids
Gen = Callable[[int], torch.Generator]  # the generator of the i-th start


@dataclass
class Flights:
    """Clients' updates, one row each: the client, the version it started from, its
    start order, when it started, when its download and its computation ended, when it
    arrives (or stops), its planned and completed steps, and its outcome (`timing.py`:
    KEPT, PARTIAL or DROPPED)."""

    ids: np.ndarray
    version: np.ndarray
    order: np.ndarray
    begin: np.ndarray
    download_end: np.ndarray
    compute_end: np.ndarray
    end: np.ndarray
    planned: np.ndarray
    done: np.ndarray
    outcome: np.ndarray

    @classmethod
    def empty(cls) -> Flights:
        i, f = np.zeros(0, dtype=np.int64), np.zeros(0)
        return cls(i, i, i, f, f, f, f, i, i, np.zeros(0, dtype=np.int8))

    def __len__(self) -> int:
        return len(self.ids)

    def take(self, rows: np.ndarray) -> Flights:
        return Flights(*(getattr(self, f.name)[rows] for f in fields(self)))

    def join(self, other: Flights) -> Flights:
        return Flights(
            *(np.concatenate([getattr(self, f.name), getattr(other, f.name)]) for f in fields(self))
        )

    def state_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name).copy() for f in fields(self)}

    @classmethod
    def of(cls, state: dict[str, Any]) -> Flights:
        return cls(**{f.name: np.asarray(state[f.name]).copy() for f in fields(cls)})


@dataclass(frozen=True)
class Arrivals:
    """What a server update collects: the updates that arrived (outcome KEPT or
    PARTIAL), in order of arrival, the clients that stopped with nothing (DROPPED), the
    clients started, and the time the previous update was applied."""

    updates: Flights
    stopped: Flights
    started: int
    since: float


def _joined(rows: list[Flights]) -> Flights:
    out = Flights.empty()
    for row in rows:
        out = out.join(row)
    return out


class FlightDeck:
    def __init__(self, clock: Clock, concurrency: int, n: int) -> None:
        self.clock = clock
        self.concurrency = concurrency
        self.n = n
        self.flying = Flights.empty()
        self.starts = 0  # calls that started clients: the index of their generator
        self.order = 0  # clients started
        self.last_update = 0.0

    def collect(self, version: int, allowed: Tensor, need: int, work: Work, start: Start,
                gen: Gen) -> Arrivals:  # fmt: skip
        """Run events until `need` updates arrived, or until no client trains and none
        can start (fewer then); `allowed`: the round-based model's (N,) mask."""
        since = self.last_update
        arrived: list[Flights] = []
        stopped: list[Flights] = []
        got = 0
        started = self._fill(version, allowed, work, start, gen)
        while got < need:
            if len(self.flying) == 0 and not self._wait(allowed):
                break
            if len(self.flying) == 0:
                started += self._fill(version, allowed, work, start, gen)
                if len(self.flying) == 0:
                    break
                continue
            first = int(np.lexsort((self.flying.order, self.flying.end))[0])
            row = self.flying.take(np.array([first]))
            self.flying = self.flying.take(np.arange(len(self.flying)) != first)
            self.clock.now = max(self.clock.now, float(row.end[0]))
            if row.outcome[0] == DROPPED:
                stopped.append(row)
            else:
                arrived.append(row)
                got += 1
            if got < need:  # else the slot fills on the new version, at the next update
                started += self._fill(version, allowed, work, start, gen)
        self.last_update = self.clock.now
        return Arrivals(_joined(arrived), _joined(stopped), started, since)

    def _fill(self, version: int, allowed: Tensor, work: Work, start: Start, gen: Gen) -> int:
        """Start idle available clients in the free slots, now; how many started."""
        free = self.concurrency - len(self.flying)
        if free <= 0:
            return 0
        idle = allowed.cpu().clone()
        idle[torch.from_numpy(self.flying.ids)] = False
        sessions = self.clock.model.sessions
        if sessions is not None:  # online, in a session that does not end now
            idle &= sessions.online(self.clock.now)
            ids = ids_of(idle)
            ending = sessions.session_end(ids.numpy(), self.clock.now) <= self.clock.now
            idle[ids[torch.from_numpy(ending)]] = False
        available = Available.of(idle)
        if len(available) == 0:
            return 0
        ids = start(available, free, gen(self.starts))
        self.starts += 1
        if len(ids) == 0:
            return 0
        planned, samples = work(ids)
        times = self.clock.time(ids.numpy(), planned, samples)
        m = len(ids)
        self.flying = self.flying.join(
            Flights(
                ids=ids.numpy().astype(np.int64),
                version=np.full(m, version, dtype=np.int64),
                order=np.arange(self.order, self.order + m, dtype=np.int64),
                begin=np.full(m, self.clock.now),
                download_end=times.download_end,
                compute_end=times.compute_end,
                end=times.end,
                planned=planned.astype(np.int64),
                done=times.done.astype(np.int64),
                outcome=np.where(times.done > 0, times.outcome, DROPPED).astype(np.int8),
            )
        )
        self.order += m
        return m

    def _wait(self, allowed: Tensor) -> bool:
        """With no client training: move the clock to the next time an allowed client
        comes online (False: none ever does, or the model has no sessions)."""
        sessions = self.clock.model.sessions
        if sessions is None:
            return False
        nxt = sessions.next_online(self.clock.now, allowed.cpu())
        if not math.isfinite(nxt):
            return False
        self.clock.now = nxt
        return True

    def state_dict(self) -> dict[str, Any]:
        return {
            "flying": self.flying.state_dict(),
            "starts": self.starts,
            "order": self.order,
            "last_update": self.last_update,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.flying = Flights.of(state["flying"])
        self.starts, self.order = int(state["starts"]), int(state["order"])
        self.last_update = float(state["last_update"])
