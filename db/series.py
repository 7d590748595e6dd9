"""Metric series packed in chunks of CHUNK rounds (`metric_chunks`).

A metric of a 70 000-round run is 274 rows instead of 70 000, so a run's twelve
metrics cost the recorder a dozen row writes per flush and a downsampled curve reads
a few hundred kilobytes. The recorder keeps each metric's open chunk in memory and
rewrites it at every flush.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

CHUNK = 256
VALUE_DTYPE = np.dtype("<f8")


def pack_present(present: np.ndarray) -> bytes:
    return np.packbits(present).tobytes()


def unpack_chunks(
    rows: Iterable[tuple[int, bytes, bytes]],
) -> tuple[np.ndarray, np.ndarray]:
    """(rounds, values) of one metric from its (chunk, present, values) rows in chunk
    order; NaN stands for a recorded value that was not finite."""
    rounds, values = [], []
    for chunk, present, packed in rows:
        mask = np.unpackbits(np.frombuffer(present, dtype=np.uint8), count=CHUNK).astype(bool)
        rounds.append(chunk * CHUNK + np.flatnonzero(mask))
        values.append(np.frombuffer(packed, dtype=VALUE_DTYPE)[mask])
    if not rounds:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    return np.concatenate(rounds), np.concatenate(values)


class ChunkWriter:
    """A run's open chunks. `add` records one round's scalars; `take` returns the rows
    changed since the last call (to upsert) and forgets the chunks no later round can
    touch. Rounds added wait in a list and enter their chunks at `take`, a metric at a
    time for all of them, rather than a value at a time as they come."""

    def __init__(self, run_id: int, stored: Iterable[tuple[str, int, bytes, bytes]] = ()) -> None:
        self.run_id = run_id
        self.open: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
        self.changed: set[tuple[str, int]] = set()
        self.waiting: list[tuple[int, dict[str, float | None]]] = []
        for name, chunk, present, packed in stored:
            mask = np.unpackbits(np.frombuffer(present, dtype=np.uint8), count=CHUNK)
            values = np.frombuffer(packed, dtype=VALUE_DTYPE).copy()
            self.open[(name, chunk)] = (mask.astype(bool), values)

    def add(self, round_: int, scalars: dict[str, float | None]) -> None:
        """Record one round's scalars (None or a non-finite value is stored as NaN)."""
        self.waiting.append((round_, scalars))

    def take(self) -> list[dict[str, Any]]:
        self._enter_waiting()
        rows = [
            {
                "run_id": self.run_id,
                "name": name,
                "chunk": chunk,
                "present": pack_present(self.open[(name, chunk)][0]),
                "values": self.open[(name, chunk)][1].astype(VALUE_DTYPE).tobytes(),
            }
            for name, chunk in sorted(self.changed)
        ]
        if self.changed:
            latest = max(chunk for _, chunk in self.changed)
            self.open = {key: v for key, v in self.open.items() if key[1] >= latest}
        self.changed = set()
        return rows

    def _enter_waiting(self) -> None:
        names = {name for _, scalars in self.waiting for name in scalars}
        for name in names:
            got = [(t, s[name]) for t, s in self.waiting if name in s]
            rounds = np.fromiter((t for t, _ in got), np.int64, len(got))
            values = np.array([math.nan if v is None else v for _, v in got], dtype=np.float64)
            values[~np.isfinite(values)] = np.nan
            chunks = rounds // CHUNK
            for chunk in np.unique(chunks).tolist():
                key = (name, chunk)
                entry = self.open.get(key)
                if entry is None:
                    entry = self.open[key] = (np.zeros(CHUNK, bool), np.full(CHUNK, np.nan))
                at = chunks == chunk
                entry[0][rounds[at] % CHUNK] = True
                entry[1][rounds[at] % CHUNK] = values[at]
                self.changed.add(key)
        self.waiting = []
