"""The distribution of per-client ε over a run's clients, as a histogram.

Each client's ε is `accountant.client_epsilon` of one number: its Poisson rate π_k over
every round where amplification applies, else the count n_k of rounds it contributed to.
ε grows with both, so the clients sorted by rate (or count) are sorted by ε: the
histogram of ε is the histogram of the rates (counts) mapped through ε, and the worst
and median clients are ε of the largest and middle rates (counts), as the live
accountant takes them. ε is therefore computed once per distinct value, not per client;
where there are more distinct values than `EXACT_COUNTS` (`EXACT_RATES`), at that many
of them only: the smallest, the largest and the middle ones, then where the ε gap times
the clients between two known values is largest; the others are interpolated linearly
between their known neighbours, which keeps the order and moves a client at most within
its interval's ε gap. The worst and median figures are always exact.

A rate costs dp-accounting a tenth of a second or more (the RDP of a Poisson-sampled
Gaussian at 156 orders, cached per rate, so a run's later requests reuse it), a count
well under a millisecond (one conversion): 10⁵ clients of distinct rates cost
`EXACT_RATES` RDP computations once, then milliseconds (`python bench/privacy.py`).
dp-accounting's ε is monotone in the rate only up to its numerics: at ε in the hundreds
it drops fractional orders whose series does not converge, and ε of a larger rate can
come out a little smaller; the figures follow the accountant's convention regardless.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from worker.engine.privacy.accountant import client_epsilon, middle

BINS = 30
EXACT_COUNTS = 256
EXACT_RATES = 10


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
    known = _known(distinct, weight, eps, exact, (ordered[lo].item(), ordered[hi].item()))
    at = np.array(sorted(known))
    each = np.interp(distinct, at, [known[v] for v in at.tolist()])
    median = (known[ordered[lo].item()] + known[ordered[hi].item()]) / 2
    low, top = known[distinct[0].item()], known[distinct[-1].item()]
    full = len(known) == len(distinct)
    if top <= low:
        return EpsilonHistogram([low, top], [n], top, median, full)
    edges = np.linspace(low, top, bins + 1)
    bin_of = np.clip(np.searchsorted(edges, each, side="right") - 1, 0, bins - 1)
    binned = np.bincount(bin_of, weights=weight, minlength=bins).astype(np.int64)
    return EpsilonHistogram(edges.tolist(), binned.tolist(), top, median, full)


def _known(
    distinct: np.ndarray,
    weight: np.ndarray,
    eps: Callable[[float], float],
    budget: int,
    median: tuple[float, float],
) -> dict[float, float]:
    """ε at every distinct value, or at `budget` of them: the smallest, the largest and
    the middle ones, then, one at a time, the clients' median value inside the interval
    between two known values whose ε gap times its clients is the largest (the clients
    that interpolation could misplace most)."""
    if len(distinct) <= budget:
        return {v: eps(v) for v in distinct.tolist()}
    known = {v: eps(v) for v in {distinct[0].item(), distinct[-1].item(), *median}}
    below = np.concatenate([[0], np.cumsum(weight)])  # clients under each distinct value
    while len(known) < budget:
        at = np.array(sorted(known))
        ends = np.searchsorted(distinct, at)  # each known value's index among the distinct
        inside = below[ends[1:]] - below[ends[:-1] + 1]  # clients strictly between
        gaps = np.diff([known[v] for v in at.tolist()])
        best = int(np.argmax(gaps * inside))
        if inside[best] == 0:
            break
        middle_client = below[ends[best] + 1] + inside[best] // 2
        split = distinct[np.searchsorted(below, middle_client, side="right") - 1].item()
        known[split] = eps(split)
    return known
