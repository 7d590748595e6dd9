"""The privacy accountant: ε after every round through Google's `dp-accounting` (RDP),
three ways (the manual's "Privacy" page derives each):

- `epsilon_assumed`: what a paper reports, every round a Poisson sample at q = K/N of a
  Gaussian mechanism of noise multiplier σ;
- per client, where the availability model draws each round independently of the others
  (`Availability.independent`) and the server sees only the noised sum (central DP):
  every round a Poisson sample at the client's own rate π_k;
- per client otherwise: the Gaussian mechanism composed over the rounds the client
  contributed to, with no amplification.

`epsilon_client_max` and `epsilon_client_median` summarise the clients. ε grows with the
rate and with the count, so both come from order statistics of the rates (fixed) or of
the counts (a histogram kept incrementally): a round costs O(K + rounds so far), and one
conversion per figure, whatever N. RDP of one round is computed once per event by
`dp_accounting.rdp.RdpAccountant`; T rounds of it are T times that vector (what
`compose(event, T)` computes), converted by `rdp_privacy_accountant.compute_epsilon`.
`client_epsilon` is the one function that gives a client's ε, for this accountant and for
the histogram of a run's clients (`client_epsilons.py`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import dp_accounting
import numpy as np
import torch
from dp_accounting.rdp import rdp_privacy_accountant

ORDERS = np.asarray(rdp_privacy_accountant.DEFAULT_RDP_ORDERS, dtype=np.float64)


@lru_cache(maxsize=4096)
def round_rdp(sigma: float, q: float) -> np.ndarray:
    """RDP at `ORDERS` of one round: Gaussian of noise multiplier σ, Poisson-sampled at q
    (q = 1: the bare Gaussian)."""
    gaussian = dp_accounting.GaussianDpEvent(sigma)
    event = gaussian if q >= 1 else dp_accounting.PoissonSampledDpEvent(q, gaussian)
    accountant = rdp_privacy_accountant.RdpAccountant(ORDERS)
    accountant.compose(event)
    rdp: np.ndarray = accountant.rdp
    rdp.flags.writeable = False
    return rdp


def epsilon(rdp: np.ndarray, count: int, delta: float) -> float:
    """ε at δ of `count` rounds of one round's `rdp` (0 rounds: 0)."""
    if count == 0:
        return 0.0
    eps, _ = rdp_privacy_accountant.compute_epsilon(ORDERS, count * rdp, delta)
    return float(eps)


def client_epsilon(sigma: float, delta: float, count: int, rate: float = 1.0) -> float:
    """ε at δ of one client: `count` rounds of the Gaussian of noise multiplier σ, each a
    Poisson sample at `rate`: its own π_k over every round (amplified), or 1 over the
    rounds it contributed to (unamplified); the assumed figure is rate K/N."""
    return epsilon(round_rdp(sigma, rate), count, delta)


def middle(n: int) -> tuple[int, int]:
    """The ranks (0-based) whose mean is the median of n sorted values."""
    return (n - 1) // 2, n // 2


class Accountant:
    """ε after each round for a run of `n` clients, `k` of them per round, noise
    multiplier σ and δ; `rates`: each client's Poisson rate where its participation is
    independent across rounds and amplification applies, else None."""

    def __init__(
        self, sigma: float, delta: float, n: int, k: int, rates: np.ndarray | None
    ) -> None:
        self.sigma = sigma
        self.delta = delta
        self.n = n
        self.assumed_rate = min(1.0, k / n)
        self.rates = None if rates is None else np.sort(np.asarray(rates, dtype=np.float64))
        self.rounds = 0
        self.counts = np.zeros(n, dtype=np.int64)  # rounds each client contributed to
        self.histogram = np.array([n], dtype=np.int64)  # clients by count
        self.by_count: list[float] = [0.0]  # ε of c unamplified rounds, c = 0, 1, ...

    def observe(self, participants: np.ndarray) -> dict[str, float]:
        """The round's figures, once the clients `participants` (ids; one id per update
        that entered, a client that sent two counted twice) contributed to it."""
        self.rounds += 1
        ids, times = np.unique(np.asarray(participants, dtype=np.int64), return_counts=True)
        np.subtract.at(self.histogram, self.counts[ids], 1)
        self.counts[ids] += times
        top = int(self.counts[ids].max()) if len(ids) else 0
        if top >= len(self.histogram):
            self.histogram = np.concatenate(
                [self.histogram, np.zeros(top + 1 - len(self.histogram), dtype=np.int64)]
            )
        np.add.at(self.histogram, self.counts[ids], 1)
        worst, median = self.amplified() if self.rates is not None else self.unamplified()
        return {
            "epsilon_assumed": client_epsilon(
                self.sigma, self.delta, self.rounds, self.assumed_rate
            ),
            "epsilon_client_max": worst,
            "epsilon_client_median": median,
        }

    def amplified(self) -> tuple[float, float]:
        """Worst and median client, each a Poisson sample at its own rate every round."""
        rates = self.rates
        assert rates is not None
        lo, hi = middle(self.n)
        eps = {
            q: client_epsilon(self.sigma, self.delta, self.rounds, q)
            for q in {float(rates[r]) for r in (lo, hi, self.n - 1)}
        }
        return eps[float(rates[-1])], (eps[float(rates[lo])] + eps[float(rates[hi])]) / 2

    def unamplified(self) -> tuple[float, float]:
        """Worst and median client, each the Gaussian composed over its own rounds."""
        ranks = np.cumsum(self.histogram)  # clients with count ≤ c
        lo, hi = (int(np.searchsorted(ranks, r, side="right")) for r in middle(self.n))
        top = len(self.histogram) - 1
        return self.by(top), (self.by(lo) + self.by(hi)) / 2

    def by(self, count: int) -> float:
        """ε of `count` unamplified rounds, kept as counts appear (one new a round)."""
        while len(self.by_count) <= count:
            self.by_count.append(client_epsilon(self.sigma, self.delta, len(self.by_count)))
        return self.by_count[count]

    def state_dict(self) -> dict[str, Any]:
        """The rounds so far and each client's count (a tensor, as checkpoints hold)."""
        return {"rounds": self.rounds, "counts": torch.from_numpy(self.counts.copy())}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.rounds = int(state["rounds"])
        self.counts = state["counts"].numpy().astype(np.int64)
        self.histogram = np.bincount(self.counts, minlength=1).astype(np.int64)
