"""LEAF's FEMNIST pixels read straight from their JSON text as the bytes k of the floats
k/255 that LEAF's preprocessing writes (`vec / 255`, dumped with Python's repr), with
no float object made: the text of a user's images, `[[p, p, ...], [...]]`, is cut at
its separators and each number's text is compared whole with repr(k/255), the k
found by a hash of its first 8 bytes. A number written any other way ("1", "0.50196078431372548",
a value off the grid) is not read here: `grid` gives None and the caller parses the
text as JSON. Equal text is the same float64 k/255, so nothing is rounded here.
"""

from __future__ import annotations

import numpy as np

GRID = [repr(k / 255).encode() for k in range(256)]
WORD = 8  # bytes a uint64 holds: a number's text is compared a word at a time
WIDE = 3 * WORD  # the longest text compared (repr(k/255) has at most 20 characters)
COMMA, OPEN, CLOSE = b",[]"
SPACE = b" \t\n\r"


def _words(texts: list[bytes]) -> np.ndarray:
    padded = np.zeros((len(texts), WIDE), dtype=np.uint8)
    for i, text in enumerate(texts):
        padded[i, : len(text)] = np.frombuffer(text, dtype=np.uint8)
    return padded.view(np.uint64)  # (n, 3)


CANON = _words(GRID)
# k by its text's first word (masked to the text's length): a multiplicative hash
# that sends the 256 words to distinct slots of 2^16 (tests/engine/test_leaf_grid.py);
# any other word lands somewhere and fails the comparison with the text of the k there
HASH, SLOTS = np.uint64(0x5187F5E7ECE1412F), np.uint64(48)
BY_WORD = np.zeros(1 << 16, dtype=np.uint8)
BY_WORD[(CANON[:, 0] * HASH) >> SLOTS] = np.arange(256)
TAIL_MASK = np.array([(1 << (8 * n)) - 1 for n in range(WORD)] + [2**64 - 1], dtype=np.uint64)


def grid(text: bytes, width: int) -> np.ndarray | None:
    """The rows of `text`, a JSON list of lists of `width` numbers each written as
    repr(k/255), as bytes k (n, width); None where the text is anything else. Spaces
    are read where json.dump writes them, after a comma; other spacing is parsed."""
    spaced = any(c in text for c in SPACE)
    if spaced and (any(c in text for c in SPACE[1:]) or text.count(b" ") != text.count(b", ")):
        return None
    a = np.frombuffer(text, dtype=np.uint8)
    seps = np.flatnonzero((a == COMMA) | (a == OPEN) | (a == CLOSE))
    rows = int(np.count_nonzero(a[seps] == OPEN)) - 1
    if rows < 1 or not np.array_equal(a[seps], _pattern(rows, width)):
        return None
    # the separators row by row: "[", width - 1 commas, "]", then the comma after it
    # (the closing "]" after the last row)
    each = seps[1:].reshape(rows, width + 2)
    starts = each[:, :width] + 1
    if spaced:  # a number after ", " starts one further
        starts += a[starts] == SPACE[0]
    lengths = each[:, 1 : width + 1] - starts
    if not _bare(a, seps, each):
        return None
    k = _numbers(text, starts.ravel(), lengths.ravel())
    return None if k is None else k.reshape(rows, width)


def _bare(a: np.ndarray, seps: np.ndarray, each: np.ndarray) -> bool:
    """Nothing but separators outside the rows' numbers: the text starts and ends with
    its brackets, and nothing lies between a row's "]", the comma and the next "["
    but the space json.dump writes after the comma."""
    between = each[:-1, -1]  # the commas between rows
    gap = each[1:, 0] - between
    return bool(
        seps[0] == 0
        and seps[1] == 1
        and seps[-1] == len(a) - 1
        and (each[:, -1] == each[:, -2] + 1).all()
        and ((gap == 1) | ((gap == 2) & (a[np.minimum(between + 1, len(a) - 1)] == SPACE[0]))).all()
    )


def _pattern(rows: int, width: int) -> np.ndarray:
    row = np.frombuffer(b"[" + b"," * (width - 1) + b"],", dtype=np.uint8)
    return np.concatenate([[OPEN], np.tile(row, rows)[:-1], [CLOSE]]).astype(np.uint8)


def _numbers(text: bytes, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """k of each number (its text at `starts`, `lengths` long), or None where one is
    not repr(k/255) exactly. The words past a text's length are masked to zero, so
    equal words mean equal lengths too, but for a text of 8 characters (no third word
    past it): those are compared like the long ones, whose second word then holds the
    separator after them where repr(k/255) has digits."""
    if lengths.min(initial=1) < 1 or lengths.max(initial=0) > WIDE:
        return None
    padded = text + bytes(WIDE)
    # each position's next 8 bytes as one (unaligned) little-endian word
    at = np.ndarray((len(text) + WIDE - WORD,), dtype="<u8", buffer=padded, strides=(1,))
    first = at[starts]
    first &= TAIL_MASK[np.minimum(lengths, WORD)]
    k = BY_WORD[(first * HASH) >> SLOTS]
    if not np.array_equal(first, CANON[k, 0]):
        return None
    long = np.flatnonzero(lengths >= WORD)
    if len(long):
        kl, sl, tail = k[long], starts[long], lengths[long] - 2 * WORD
        third = at[sl + 2 * WORD] & TAIL_MASK[np.clip(tail, 0, WORD)]
        if not (
            np.array_equal(at[sl + WORD], CANON[kl, 1]) and np.array_equal(third, CANON[kl, 2])
        ):
            return None
    return k
