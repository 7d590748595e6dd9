"""Staleness marks (`staleness_marks`): every MARK_EVERY rounds, each client's
accumulated staleness and last selection.

The staleness of client k at round u is u − L_k(u), L_k(u) its last selection at or
before u (−1 before the first). With S_k(t) = Σ_{u<t} (u − L_k(u)), the mean staleness
of a block of clients over rounds [a, b) is the difference of the block's S at b and a
divided by its size: a heatmap of 70 000 rounds needs S at a few hundred bounds, read
from the nearest mark at or before each bound and carried forward over the few rounds
in between (see `carry`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from db.packing import id_dtype

MARK_EVERY = 32
TOTAL_DTYPE = np.dtype("<i8")
LAST_DTYPE = np.dtype("<i4")
MARK_BYTES_PER_CLIENT = TOTAL_DTYPE.itemsize + LAST_DTYPE.itemsize


def marks_between(first: int, end: int) -> int:
    """How many marks rounds [first, end) make due: one at each multiple of MARK_EVERY in
    (first, end]."""
    return max(0, end // MARK_EVERY - first // MARK_EVERY)


class SelectionTally:
    """Each client's last selection L_k and accumulated staleness S_k(t), moved on by the
    recorder's writer a batch of rounds at a time: gives each round's selection gaps
    and, every MARK_EVERY rounds, a staleness mark row. Rounds that were never recorded
    count as rounds in which nobody was selected.

    It keeps S_k(t) as `closed` + (t − L_k)(t − L_k − 1)/2: between consecutive
    selections a client's staleness runs 0, 1, …, g − 1 (g the gap; the first segment
    starts at round −1), so a selection closes a segment worth g(g − 1)/2, added to the
    client's `closed` part; a round touches only the selected clients and S is computed
    for all of them only when a mark is due.
    """

    def __init__(
        self,
        run_id: int,
        next_round: int,
        last: np.ndarray,
        totals: np.ndarray,
        pending: np.ndarray | None = None,
    ) -> None:
        """`pending`: the gaps of the selections since the last mark before `next_round`
        (they go into the next mark's gap counts)."""
        self.run_id = run_id
        self.next_round = next_round
        self.last = last.astype(np.int64)
        self.closed = totals.astype(np.int64) - _open(next_round, self.last)
        self.pending = [np.zeros(0, np.int64) if pending is None else pending.astype(np.int64)]

    @classmethod
    def empty(cls, run_id: int, n_clients: int) -> SelectionTally:
        return cls(run_id, 0, np.full(n_clients, -1), np.zeros(n_clients))

    @property
    def totals(self) -> np.ndarray:
        """S_k(next_round)."""
        return self.closed + _open(self.next_round, self.last)

    def advance(self, round_: int, ids: np.ndarray) -> tuple[np.ndarray, list[dict[str, Any]]]:
        """Record round `round_`'s selected `ids`; return their gaps (rounds since each
        one's previous selection, round + 1 for a first) and the marks now due."""
        return self.advance_many([round_], [ids])

    def advance_many(
        self, rounds: Sequence[int], selected: Sequence[np.ndarray]
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        """`advance` over rounds in increasing order, all at once: the gaps of all their
        selections, concatenated in order, and the marks due by the last round. A
        client's gap is the distance to its previous selection in these rounds, or to
        `last` for its first one here."""
        lengths = [len(ids) for ids in selected]
        ids = np.concatenate([np.zeros(0, np.int64), *selected]).astype(np.int64, copy=False)
        at = np.repeat(np.asarray(rounds, dtype=np.int64), lengths)  # ascending
        # By client, then round; a radix sort on the ids in their packed width.
        order = np.argsort(ids.astype(id_dtype(len(self.last))), kind="stable")
        by_client, when = ids[order], at[order]
        previous = self.last[by_client]
        repeat = np.flatnonzero(by_client[1:] == by_client[:-1]) + 1
        previous[repeat] = when[repeat - 1]
        gaps = np.empty_like(at)
        gaps[order] = when - previous
        increments = gaps * (gaps - 1) // 2
        marks = []
        end = (int(rounds[-1]) + 1) if len(rounds) else self.next_round
        first = (self.next_round // MARK_EVERY + 1) * MARK_EVERY
        done = 0  # the selections applied so far: those before the next mark
        for t in [*range(first, end + 1, MARK_EVERY), None]:
            upto = len(at) if t is None else int(np.searchsorted(at, t))
            np.add.at(self.closed, ids[done:upto], increments[done:upto])
            np.maximum.at(self.last, ids[done:upto], at[done:upto])
            self.pending.append(gaps[done:upto])
            done = upto
            if t is not None:
                marks.append(self._mark(t))
                self.pending = []
        self.next_round = max(self.next_round, end)
        return gaps, marks

    def _mark(self, t: int) -> dict[str, Any]:
        """The mark at round t, with every selection so far before t."""
        return {
            "run_id": self.run_id,
            "round": t,
            "total": (self.closed + _open(t, self.last)).astype(TOTAL_DTYPE).tobytes(),
            "last": self.last.astype(LAST_DTYPE).tobytes(),
            "gaps": pack_gap_counts(np.concatenate([np.zeros(0, np.int64), *self.pending])),
        }


def pack_gap_counts(gaps: np.ndarray) -> bytes:
    """The distinct gap lengths and how many of `gaps` have each, as int32 pairs."""
    values, counts = np.unique(gaps, return_counts=True)
    return np.stack([values, counts], axis=1).astype(LAST_DTYPE).tobytes()


def unpack_gap_counts(blob: bytes) -> tuple[np.ndarray, np.ndarray]:
    pairs = np.frombuffer(blob, dtype=LAST_DTYPE).reshape(-1, 2).astype(np.int64)
    return pairs[:, 0], pairs[:, 1]


def _open(t: int, last: np.ndarray) -> np.ndarray:
    """Σ_{L ≤ u < t} (u − L): the staleness accumulated since each last selection."""
    return (t - last) * (t - last - 1) // 2


def unpack_mark(total: bytes, last: bytes) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.frombuffer(total, dtype=TOTAL_DTYPE).astype(np.int64),
        np.frombuffer(last, dtype=LAST_DTYPE).astype(np.int64),
    )


def carry(
    total: np.ndarray,
    last: np.ndarray,
    sizes: np.ndarray,
    mark: int,
    t: int,
    events: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    """Σ_k S_k(t) for each group of clients, from the group sums of S_k(mark) (`total`)
    and L_k(mark − 1) (`last`), the group sizes, and the selections in [mark, t) as
    (round e, group, gap g) arrays:

        Σ_{u=mark}^{t−1} (u − L_k(u)) = Σ_{u=mark}^{t−1} u − (t − mark)·L_k(mark − 1)
                                        − Σ_{e ∈ [mark, t)} g_e·(t − e)

    since each selection raises L_k by its gap from its round on.
    """
    rounds, groups, gaps = events
    span = t - mark
    raised = np.bincount(groups, weights=gaps * (t - rounds), minlength=len(total))
    return total + sizes * ((mark + t - 1) * span // 2) - span * last - raised.astype(np.int64)
