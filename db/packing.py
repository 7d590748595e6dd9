"""Compact per-round client records: bitmaps and packed id/weight arrays."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ACC_DTYPE = np.dtype("<f4")
WEIGHT_DTYPE = np.dtype("<f4")
GAP_NARROW = np.dtype("<u2")
GAP_WIDE = np.dtype("<u4")


def id_dtype(n_clients: int) -> np.dtype[np.unsignedinteger]:
    """Client ids fit in 2 bytes up to 65 536 clients, else 4."""
    return np.dtype("<u2") if n_clients <= 1 << 16 else np.dtype("<u4")


def pack_available(ids: Sequence[int] | np.ndarray, n_clients: int) -> bytes:
    mask = np.zeros(n_clients, dtype=bool)
    mask[ids] = True
    return np.packbits(mask).tobytes()


def pack_available_many(rounds: Sequence[np.ndarray], n_clients: int) -> list[bytes]:
    """`pack_available` of many rounds at once: one bitmap matrix for all of them."""
    lengths = [len(ids) for ids in rounds]
    flat = np.concatenate([np.zeros(0, np.int64), *rounds])
    mask = np.zeros((len(rounds), n_clients), dtype=bool)
    mask[np.repeat(np.arange(len(rounds)), lengths), flat] = True
    return [row.tobytes() for row in np.packbits(mask, axis=1)]


def unpack_available(rows: list[bytes], n_clients: int) -> np.ndarray:
    """(rounds, n_clients) uint8 0/1 matrix from per-round bitmaps."""
    if not rows:
        return np.zeros((0, n_clients), dtype=np.uint8)
    packed = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), -1)
    return np.unpackbits(packed, axis=1, count=n_clients)


def pack_ids(ids: Sequence[int] | np.ndarray, n_clients: int) -> bytes:
    return np.asarray(ids, dtype=id_dtype(n_clients)).tobytes()


def _split(flat: np.ndarray, lengths: Sequence[int]) -> list[bytes]:
    """The bytes of `flat` (one dtype), cut into consecutive runs of `lengths` items."""
    blob = flat.tobytes()
    ends = np.cumsum(lengths, dtype=np.int64) * flat.itemsize
    starts = ends - np.asarray(lengths, dtype=np.int64) * flat.itemsize
    return [blob[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]


def pack_ids_many(rounds: Sequence[np.ndarray], n_clients: int) -> list[bytes]:
    """`pack_ids` of many rounds at once: one conversion, then a slice per round."""
    flat = np.concatenate([np.zeros(0, np.int64), *rounds])
    return _split(flat.astype(id_dtype(n_clients)), [len(ids) for ids in rounds])


def unpack_ids(blob: bytes, n_clients: int) -> np.ndarray:
    return np.frombuffer(blob, dtype=id_dtype(n_clients))


# The gaps of a round whose earlier rounds have not all arrived (an external run's rounds
# arrive in any order): not known yet. One byte, which no packed gaps are (2 or 4 each).
PENDING_GAPS = b"?"


def pack_gaps(gaps: np.ndarray) -> bytes:
    """Rounds since each selected client's previous selection, aligned with the ids:
    2 bytes each unless one of them reaches 65 536, then 4 (the length tells which)."""
    wide = gaps.size > 0 and int(gaps.max()) > 0xFFFF
    return np.asarray(gaps, dtype=GAP_WIDE if wide else GAP_NARROW).tobytes()


def pack_gaps_many(gaps: np.ndarray, lengths: Sequence[int]) -> list[bytes]:
    """`pack_gaps` of many rounds at once, from their gaps concatenated (`lengths` ids
    each): one conversion for the rounds whose gaps fit 2 bytes, then a slice each."""
    packed = _split(gaps.astype(GAP_NARROW), lengths)
    if gaps.size and int(gaps.max()) > 0xFFFF:  # the rounds holding a wide gap, again
        ends = np.cumsum(lengths, dtype=np.int64)
        for i in np.unique(np.searchsorted(ends, np.flatnonzero(gaps > 0xFFFF), side="right")):
            packed[i] = pack_gaps(gaps[ends[i] - lengths[i] : ends[i]])
    return packed


def unpack_gaps(blobs: list[bytes], counts: np.ndarray) -> np.ndarray:
    """The gaps of many rounds concatenated; `counts` = number of ids of each round."""
    joined = b"".join(blobs)
    if len(joined) == GAP_NARROW.itemsize * int(counts.sum()):  # no wide round
        return np.frombuffer(joined, dtype=GAP_NARROW)
    wide = np.fromiter(map(len, blobs), np.int64, len(blobs)) > GAP_NARROW.itemsize * counts
    narrow = np.repeat(~wide, counts)
    out = np.empty(len(narrow), dtype=GAP_WIDE)
    out[narrow] = np.frombuffer(
        b"".join(b for b, w in zip(blobs, wide, strict=True) if not w), GAP_NARROW
    )
    out[~narrow] = np.frombuffer(
        b"".join(b for b, w in zip(blobs, wide, strict=True) if w), GAP_WIDE
    )
    return out


def pack_weights(ids: np.ndarray, values: np.ndarray, n_clients: int) -> bytes:
    """zlib of the ids (ascending) as gaps, then their float32 weights: memory algorithms
    weight every client, and those dense, equal weights shrink to a few bytes."""
    gaps = np.empty(len(ids), id_dtype(n_clients))
    gaps[:1] = ids[:1]
    np.subtract(ids[1:], ids[:-1], out=gaps[1:], casting="unsafe")
    return zlib.compress(gaps.tobytes() + values.astype(WEIGHT_DTYPE).tobytes(), 1)


def unpack_weights(blob: bytes, n_clients: int) -> dict[int, float]:
    ids, values = unpack_weight_arrays(blob, n_clients)
    return {int(i): float(v) for i, v in zip(ids, values, strict=True)}


def unpack_weight_arrays(blob: bytes, n_clients: int) -> tuple[np.ndarray, np.ndarray]:
    """Packed weights as arrays: the ids (int64, ascending) and their weights (float32)."""
    raw = zlib.decompress(blob)
    size = id_dtype(n_clients).itemsize
    n = len(raw) // (size + WEIGHT_DTYPE.itemsize)
    ids = np.cumsum(np.frombuffer(raw[: n * size], dtype=id_dtype(n_clients)), dtype=np.int64)
    return ids, np.frombuffer(raw[n * size :], dtype=WEIGHT_DTYPE)


def pack_acc(acc: list[float] | None) -> bytes | None:
    return None if acc is None else np.asarray(acc, dtype=ACC_DTYPE).tobytes()


def unpack_acc(blob: bytes) -> list[float | None]:
    values = np.frombuffer(blob, dtype=ACC_DTYPE)
    return [None if np.isnan(v) else float(v) for v in values]


TIME_DTYPE = np.dtype("<f8")
OFFSET_DTYPE = np.dtype("<f4")
OUTCOME_DTYPE = np.dtype("<u1")


@dataclass(frozen=True)
class Timeline:
    """A round's selected clients in simulated time, unpacked: `start` (seconds), and
    per client its id, when it began, the ends of its download, computation and
    activity (seconds after `start`) and its update's outcome."""

    start: float
    ids: np.ndarray
    begin: np.ndarray
    download: np.ndarray
    compute: np.ndarray
    end: np.ndarray
    outcome: np.ndarray


def pack_timeline(
    start: float, ids: np.ndarray, ends: np.ndarray, outcome: np.ndarray, n_clients: int
) -> bytes:
    """A round in simulated time: its start (float64), then the m client ids, the
    (3, m) ends of their download, computation and activity as float32 offsets from the
    start (all of one kind together), and an outcome byte each."""
    return b"".join(
        (
            np.asarray([start], dtype=TIME_DTYPE).tobytes(),
            np.asarray(ids, dtype=id_dtype(n_clients)).tobytes(),
            (np.asarray(ends) - start).astype(OFFSET_DTYPE).tobytes(),
            np.asarray(outcome, dtype=OUTCOME_DTYPE).tobytes(),
        )
    )


def pack_begins(start: float, begin: np.ndarray) -> bytes:
    """When each client of a packed timeline began, where not at its start (an async
    server update's clients): float32 offsets from the start, in the timeline's order
    (negative for a client that began before the previous update)."""
    return (np.asarray(begin) - start).astype(OFFSET_DTYPE).tobytes()


def unpack_timeline(blob: bytes, n_clients: int, begins: bytes | None = None) -> Timeline:
    """A packed timeline, with its clients' packed begins (None: all at its start)."""
    ids_dtype = id_dtype(n_clients)
    m = (len(blob) - TIME_DTYPE.itemsize) // (ids_dtype.itemsize + 3 * OFFSET_DTYPE.itemsize + 1)
    start = float(np.frombuffer(blob, TIME_DTYPE, 1)[0])
    at = TIME_DTYPE.itemsize
    ids = np.frombuffer(blob, ids_dtype, m, at)
    at += m * ids_dtype.itemsize
    offsets = np.frombuffer(blob, OFFSET_DTYPE, 3 * m, at).reshape(3, m)
    outcome = np.frombuffer(blob, OUTCOME_DTYPE, m, at + 3 * m * OFFSET_DTYPE.itemsize)
    begin = np.zeros(m, OFFSET_DTYPE) if begins is None else np.frombuffer(begins, OFFSET_DTYPE)
    return Timeline(start, ids, begin, offsets[0], offsets[1], offsets[2], outcome)


FACT_DTYPE = np.dtype("<f8")
# The layout with a flags byte: 1, then which optional arrays follow the data shares
# (`WORK`, `RATE`), then their zlib. The first layout, zlib alone, starts with 0x78.
FLAGGED = b"\x01"
WORK = 1
RATE = 2


@dataclass(frozen=True)
class Facts:
    """Each client's data share and, with a system model, its device time (seconds);
    where the privacy accountant amplifies at each client's availability, that rate."""

    data_share: np.ndarray
    work_s: np.ndarray | None
    privacy_rate: np.ndarray | None = None


def pack_facts(
    data_share: np.ndarray, work_s: np.ndarray | None, privacy_rate: np.ndarray | None = None
) -> bytes:
    """zlib of the N data shares, then the N device times where there are (float64);
    with privacy rates, `FLAGGED`, a byte of flags, then zlib of the shares, the times
    where there are and the N rates. Without rates the first layout, byte for byte."""
    parts = [np.asarray(data_share, FACT_DTYPE).tobytes()]
    if work_s is not None:
        parts.append(np.asarray(work_s, FACT_DTYPE).tobytes())
    if privacy_rate is None:
        return zlib.compress(b"".join(parts), 1)
    parts.append(np.asarray(privacy_rate, FACT_DTYPE).tobytes())
    flags = (WORK if work_s is not None else 0) | RATE
    return FLAGGED + bytes([flags]) + zlib.compress(b"".join(parts), 1)


def unpack_facts(blob: bytes, n_clients: int) -> Facts:
    """Facts packed in either layout."""
    if not blob.startswith(FLAGGED):
        values = np.frombuffer(zlib.decompress(blob), FACT_DTYPE)
        return Facts(values[:n_clients], values[n_clients:] if len(values) > n_clients else None)
    flags = blob[1]
    arrays = np.frombuffer(zlib.decompress(blob[2:]), FACT_DTYPE).reshape(-1, n_clients)
    work = arrays[1] if flags & WORK else None
    return Facts(arrays[0], work, arrays[-1] if flags & RATE else None)
