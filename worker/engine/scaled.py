"""The mean and std of floats of any size, scaled by a power of two so that no sum
overflows: the summary's, and the comparison's (`worker.results.stats`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def scaled_mean(values: Sequence[float]) -> float:
    """The mean of finite floats, whatever their size: computed on the values scaled by a
    power of two below their largest magnitude (exact), so no sum overflows; for values
    whose sum fits, the same float as `fsum(values) / n`."""
    exponent = binary_exponent(values)
    return math.ldexp(math.fsum(math.ldexp(v, -exponent) for v in values) / len(values), exponent)


def scaled_std(values: Sequence[float], ddof: int = 0) -> float:
    """The std (population, or sample with `ddof=1`) of finite floats, scaled as
    `scaled_mean` so that neither the squares nor their sum overflow; inf where the std
    itself is past the float range."""
    exponent = binary_exponent(values)
    scaled = [math.ldexp(v, -exponent) for v in values]
    mean = math.fsum(scaled) / len(scaled)
    spread = math.sqrt(math.fsum((v - mean) ** 2 for v in scaled) / (len(scaled) - ddof))
    with np.errstate(over="ignore"):  # past the float range: inf, not an error
        return float(np.ldexp(spread, exponent))


def binary_exponent(values: Sequence[float]) -> int:
    """The power of two just above the largest magnitude of `values` (not empty)."""
    return math.frexp(max(abs(v) for v in values))[1]
