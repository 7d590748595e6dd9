"""One synchronous round in simulated time, for all its selected clients at once.

A selected client downloads the model (`down_s`), computes its local steps (`steps`
of them, `compute_s` in all, each step an equal share) and uploads its update
(`up_s`). Its window closes at min(the end of its session, round start + deadline).
If its whole work arrives by then, the update is complete. If not:
- `partial=False` (drop): it returns nothing;
- `partial=True` (keep): it does the s steps whose upload still arrives in its window
  and returns them if s ≥ 1 (a partial update); with s = 0 it returns nothing and
  computes nothing.
The server keeps the first `need` updates to arrive (ties by position): with
over-commitment `need` = K of the ⌈(1 + o)·K⌉ selected, and the later arrivals are
discarded; otherwise `need` is every selected client.

The round ends when the last kept update arrives once `need` are kept; otherwise when
every client is resolved: its update arrived, or its window closed (it left, or the
deadline came). Every client stops when it leaves or the round ends. The compute of
clients whose update does not enter, up to then, is wasted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KEPT, PARTIAL, DROPPED, DISCARDED = 1, 2, 3, 4  # outcome of a selected client's update


@dataclass(frozen=True)
class Work:
    """The selected clients' work (m,): seconds to download, compute all its steps and
    upload (float64), and their planned local steps (int64)."""

    down_s: np.ndarray
    compute_s: np.ndarray
    up_s: np.ndarray
    steps: np.ndarray


@dataclass(frozen=True)
class RoundTimes:
    """Per selected client (m,): the steps `done` (0: it returned nothing), its
    `outcome` (KEPT, PARTIAL, DROPPED, DISCARDED) and the absolute times its download,
    its computation and its activity ended (`end`: its update arrived, or it stopped);
    the round's end and the compute of the updates that did not enter (seconds)."""

    done: np.ndarray
    outcome: np.ndarray
    download_end: np.ndarray
    compute_end: np.ndarray
    end: np.ndarray
    round_end: float
    wasted_s: float

    @property
    def kept(self) -> np.ndarray:
        """(m,) bool: the updates that enter the round."""
        return self.outcome <= PARTIAL


def time_round(
    start: float, work: Work, session_end: np.ndarray, deadline: float, partial: bool, need: int
) -> RoundTimes:
    """The round that starts at `start` (seconds), each client's session ending at
    `session_end` (inf: it stays), the server waiting at most `deadline` seconds
    (inf: no deadline) for `need` updates. NumPy on a few hundred numbers: a torch
    operation's overhead would cost more than the arithmetic."""
    close = np.minimum(session_end, start + deadline)
    begin = start + work.down_s
    per_step = work.compute_s / np.maximum(work.steps, 1)
    full = begin + work.compute_s + work.up_s
    complete = full <= close
    if partial:
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.floor((close - begin - work.up_s) / per_step)
        fits = np.clip(np.nan_to_num(room, nan=0.0, posinf=2.0**62), 0, 2.0**62).astype(np.int64)
        done = np.where(complete, work.steps, np.minimum(fits, work.steps))
    else:
        done = np.where(complete, work.steps, 0)
    returned = done > 0
    computed = np.where(complete, begin + work.compute_s, begin + done * per_step)
    if not partial:  # a client that returns nothing computes until done or gone
        computed = np.where(returned, computed, begin + work.compute_s)
    arrival = np.where(complete, full, computed + work.up_s)
    kept = returned & (_arrival_rank(arrival, returned) < need)
    if int(kept.sum()) >= need:
        round_end = float(arrival[kept].max()) if need else start
    else:
        resolved = np.where(returned, arrival, close)
        round_end = float(resolved.max()) if len(resolved) else start
    stop = np.minimum(session_end, round_end)
    download_end = np.minimum(begin, stop)
    compute_end = np.maximum(np.minimum(computed, stop), download_end)
    lost_end = computed if partial else full  # it would upload once done, if still there
    end = np.where(kept, arrival, np.minimum(np.where(returned, arrival, lost_end), stop))
    end = np.maximum(end, compute_end)
    outcome = np.where(returned, DISCARDED, DROPPED)
    outcome[kept] = np.where(done[kept] < work.steps[kept], PARTIAL, KEPT)
    wasted = float((compute_end - download_end)[~kept].sum())
    return RoundTimes(done, outcome, download_end, compute_end, end, round_end, wasted)


def _arrival_rank(arrival: np.ndarray, returned: np.ndarray) -> np.ndarray:
    """Each client's place among the returned updates in order of arrival (ties by
    position); the clients that return nothing come after all of them."""
    order = np.argsort(np.where(returned, arrival, np.inf), kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank
