"""Unions of integer intervals [start, end) grouped by client, without enumerating rounds.

Clients are dense ids 0..M-1; every function costs O(I log I) in the number I of
intervals, whatever their lengths.
"""

from __future__ import annotations

import numpy as np

Intervals = tuple[np.ndarray, np.ndarray, np.ndarray]  # client, start, end (int64)


def merge(client: np.ndarray, start: np.ndarray, end: np.ndarray) -> Intervals:
    """Disjoint intervals covering the same rounds, sorted by (client, start)."""
    if len(client) == 0:
        return client, start, end
    order = np.lexsort((start, client))
    c, s, e = client[order], start[order], end[order]
    coords = np.unique(np.concatenate([s, e]))
    width = len(coords)
    # Keys compare (client, round) pairs as one int64: a client's keys exceed every
    # key of the clients before it, so a running maximum restarts at each client.
    reach = np.maximum.accumulate(c * width + np.searchsorted(coords, e))
    opens = c * width + np.searchsorted(coords, s)
    first = np.flatnonzero(np.concatenate([[True], opens[1:] > reach[:-1]]))
    last = np.concatenate([first[1:], [len(c)]]) - 1
    return c[first], s[first], coords[reach[last] - c[last] * width]


def covered(blocks: Intervals, client: np.ndarray, upto: np.ndarray) -> np.ndarray:
    """Rounds in [0, upto) covered by `client`'s blocks (disjoint, sorted as `merge`
    returns them), for each (client, upto) pair."""
    bc, bs, be = blocks
    if len(bc) == 0:
        return np.zeros(len(client), dtype=np.int64)
    coords = np.unique(np.concatenate([bs, be, upto]))
    width = len(coords)
    opens = bc * width + np.searchsorted(coords, bs)
    below = np.searchsorted(opens, client * width + np.searchsorted(coords, upto))
    first = np.searchsorted(bc, client)
    cum = np.concatenate([[0], np.cumsum(be - bs)])
    total = cum[below] - cum[first]
    prev = np.maximum(below - 1, 0)  # the one block that may straddle `upto`
    straddles = (below > first) & (be[prev] > upto)
    return total - np.where(straddles, be[prev] - upto, 0)
