"""The distribution of per-client ε over a run's clients, as a histogram.

Each client's ε is `accountant.client_epsilon` of one number: its Poisson rate π_k over
every round where amplification applies, else the count n_k of rounds it contributed to.
ε grows with both, so the clients sorted by rate (or count) are sorted by ε: the
histogram of ε is the histogram of the rates (counts) mapped through ε, and the worst
and median clients are ε of the largest and middle rates (counts). ε is therefore
computed once per distinct value, not per client; where there are more distinct values
than `EXACT` (continuous rates, counts over many rounds), at `EXACT` order statistics
only (the smallest, the largest and the middle ones among them), and linearly
interpolated in the rate (count) between them, which keeps the order and places a
client at most one interpolation interval off. The worst and median figures are always
exact. A rate costs dp-accounting a fraction of a second (its RDP of a Poisson-sampled
Gaussian, cached per rate), a count well under a millisecond (one conversion), so the
histogram of 10⁵ clients with distinct rates costs `EXACT_RATES` of them at most.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from worker.engine.privacy.accountant import client_epsilon, middle

BINS = 30
EXACT_COUNTS = 256
EXACT_RATES = 12


@dataclass(frozen=True)
class EpsilonHistogram:
    """Clients by ε: `counts[i]` clients in [edges[i], edges[i+1]) (the last bin closed);
    one bin [ε, ε] where every client has the same ε. `exact`: every client's ε was
    computed, none interpolated."""

    edges: list[float]
    counts: list[int]
    maximum: float
    median: float
    exact: bool


def epsilon_histogram(
    sigma: float,
    delta: float,
    rounds: int,
    rates: np.ndarray | None,
    counts: np.ndarray,
    bins: int = BINS,
) -> EpsilonHistogram:
    """Per-client ε at δ after `rounds` rounds of noise multiplier σ: amplified at each
    client's `rates` where given, else composed over its `counts` of contributions."""
    if rates is not None:
        values = np.asarray(rates, dtype=np.float64)
        exact = EXACT_RATES

        def eps(v: float) -> float:
            return client_epsilon(sigma, delta, rounds, v)
    else:
        values = np.asarray(counts, dtype=np.int64)
        exact = EXACT_COUNTS

        def eps(v: float) -> float:
            return client_epsilon(sigma, delta, int(v))

    return _histogram(values, eps, exact, bins)


def _histogram(
    values: np.ndarray, eps: Callable[[float], float], exact: int, bins: int
) -> EpsilonHistogram:
    """`eps` (nondecreasing) of each of `values`, binned into `bins` bins of equal width."""
    ordered = np.sort(values)
    n = len(ordered)
    distinct, weight = np.unique(ordered, return_counts=True)
    lo, hi = middle(n)
    at = distinct
    if len(distinct) > exact:
        ranks = np.rint(np.linspace(0, n - 1, exact)).astype(np.int64)
        at = np.unique(np.concatenate([ordered[ranks], ordered[[lo, hi]]]))
    known = {v: eps(v) for v in at.tolist()}
    each = np.interp(distinct, at, list(known.values()))
    median = (known[ordered[lo].item()] + known[ordered[hi].item()]) / 2
    low, top = known[distinct[0].item()], known[distinct[-1].item()]
    if top <= low:
        return EpsilonHistogram([low, top], [n], top, median, len(at) == len(distinct))
    edges = np.linspace(low, top, bins + 1)
    bin_of = np.clip(np.searchsorted(edges, each, side="right") - 1, 0, bins - 1)
    binned = np.bincount(bin_of, weights=weight, minlength=bins).astype(np.int64)
    return EpsilonHistogram(edges.tolist(), binned.tolist(), top, median, len(at) == len(distinct))
