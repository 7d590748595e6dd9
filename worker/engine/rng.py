"""Seed derivation: every random stream is a pure function of (seed, purpose, index)."""

from __future__ import annotations

import hashlib

import numpy as np
import torch

# Runs of at most this many clients draw the streams every run drew before larger
# populations were admitted (10⁵ was the cap), so that they record what they did; above
# it a draw may take a cheaper stream (`algorithms/selection.py`,
# `availability/bernoulli.py`).
KEPT_STREAMS_UP_TO = 100_000


def derive_seed(seed: int, purpose: str, *index: int) -> int:
    text = ":".join([str(seed), purpose, *map(str, index)]).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little") >> 1


def torch_gen(seed: int, purpose: str, *index: int) -> torch.Generator:
    """A CPU generator for `purpose` (draw on CPU, then move: same numbers on any device)."""
    return torch.Generator().manual_seed(derive_seed(seed, purpose, *index))


def numpy_gen(seed: int, purpose: str, *index: int) -> np.random.Generator:
    return np.random.default_rng(derive_seed(seed, purpose, *index))
