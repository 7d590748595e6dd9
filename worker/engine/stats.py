"""Statistics of a comparison across seeds, shared by the CLI table and the API."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

from scipy import stats


def paired_p(a: Sequence[float | None], b: Sequence[float | None]) -> float | None:
    """Two-sided paired t-test p-value of `a` against `b` (aligned by seed); None without
    two complete pairs, or when the differences have no spread (the test is undefined)."""
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    if len(pairs) < 2:
        return None
    xs, ys = zip(*pairs, strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # near-identical samples
        p = float(stats.ttest_rel(xs, ys).pvalue)
    return p if math.isfinite(p) else None
