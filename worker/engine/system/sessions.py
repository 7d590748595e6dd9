"""Availability in seconds: the online sessions of trace clients, repeating with a
period, queried for every run client at once (no loop over clients).

Trace client c is online at time x when start ≤ x mod P_c ≤ end for one of its
sessions [start, end] (closed, as FedScale's traces read); overlapping or touching
sessions are merged. Run client k follows trace client `owner[k]`. Queries cost
O(N log I) for N run clients and I sessions: sessions are sorted by (client, start)
and searched with one integer key per (client, start), as in `availability/intervals.py`.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor

from worker.engine.availability.intervals import merge


class Sessions:
    def __init__(
        self,
        client: np.ndarray,
        start: np.ndarray,
        end: np.ndarray,
        period: np.ndarray,
        owner: np.ndarray,
    ) -> None:
        """`client`, `start`, `end`: one row per session (at least one), clients dense
        in 0..M-1; `period` (M,) seconds; `owner` (N,) the trace client of each run
        client."""
        self.period = period.astype(np.float64)
        self.owner = owner.astype(np.int64)
        c, s, e = merge(client.astype(np.int64), start.astype(np.float64), end.astype(np.float64))
        self.client, self.start, self.end = c, s, e
        m = len(self.period)
        self.first = np.searchsorted(c, np.arange(m + 1))  # sessions of c: first[c]:first[c+1]
        self.coords = np.unique(s)
        self.width = len(self.coords) + 1
        self.keys = c * self.width + np.searchsorted(self.coords, s)
        on = np.clip(np.minimum(e, self.period[c]) - np.maximum(s, 0.0), 0.0, None)
        share = np.zeros(m)
        np.add.at(share, c, on)
        self.pi = torch.from_numpy(np.minimum(share / self.period, 1.0)[self.owner])

    def _latest(self, now: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per run client: its trace client, its time in the period, and its last
        session starting at or before that time (−1: none)."""
        c = self.owner
        phase = np.fmod(now, self.period[c])
        reached = np.searchsorted(self.coords, phase, side="right")
        pos = np.searchsorted(self.keys, c * self.width + reached) - 1
        return c, phase, np.where(pos >= self.first[c], pos, -1)

    def online(self, now: float) -> Tensor:
        """(N,) bool: the run clients online at `now`."""
        _, phase, pos = self._latest(now)
        return torch.from_numpy((pos >= 0) & (phase <= self.end[pos]))

    def session_end(self, ids: np.ndarray, now: float) -> np.ndarray:
        """(len(ids),) float64: when the sessions of the run clients `ids`, online at
        `now`, end."""
        _, phase, pos = self._latest(now)
        return now - phase[ids] + self.end[pos[ids]]

    def next_online(self, now: float, among: Tensor) -> float:
        """The first time after `now` when a session of a run client `among` (an (N,)
        bool mask) starts (inf: none has a session)."""
        c, phase, pos = self._latest(now)
        has = self.first[c + 1] > self.first[c]
        nxt = pos + 1
        later = (pos >= 0) & (nxt < self.first[c + 1])
        later |= (pos < 0) & has  # before its first session of the period
        nxt = np.where(pos < 0, self.first[c], nxt)
        in_period = self.start[np.minimum(nxt, len(self.start) - 1)] - phase
        wrapped = (
            self.period[c] - phase + self.start[np.minimum(self.first[c], len(self.start) - 1)]
        )
        wait = np.where(later, in_period, np.where(has, wrapped, math.inf))
        wait = wait[among.numpy()]
        return now + float(wait.min()) if len(wait) else math.inf
