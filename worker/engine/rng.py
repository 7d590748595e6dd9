"""Seed derivation: every random stream is a pure function of (seed, purpose, index)."""

from __future__ import annotations

import hashlib

import numpy as np
import torch


def derive_seed(seed: int, purpose: str, *index: int) -> int:
    text = ":".join([str(seed), purpose, *map(str, index)]).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little") >> 1


def torch_gen(seed: int, purpose: str, *index: int) -> torch.Generator:
    """A CPU generator for `purpose` (draw on CPU, then move: same numbers on any device)."""
    return torch.Generator().manual_seed(derive_seed(seed, purpose, *index))


def numpy_gen(seed: int, purpose: str, *index: int) -> np.random.Generator:
    return np.random.default_rng(derive_seed(seed, purpose, *index))
