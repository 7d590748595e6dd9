"""The distance Σ_k |α_k − s_k/R| between the target weights α and the average of the
rounds' weight distributions (`tv_bias_avg` is half of it), kept up to date in time
independent of N.

With d_k = R·α_k − s_k, Σ_k |d_k| = Σ_k d_k − 2·Σ_{d_k < 0} d_k, and Σ_k d_k = R·Σα − Σs.
So it takes the sums of α and of s over the clients whose weights ran ahead of their
target (s_k > R·α_k, "ahead"). A round changes s for the clients it weights, and R for
every client: d_k grows by α_k a round, so a client ahead falls back at R ≥ s_k/α_k,
which a heap orders. A round costs O(K log N) for its K weighted clients, where a pass
over the clients weighted so far (up to N, and 8 bytes each copied a round) took
milliseconds a round at 10⁶ clients, more as the run went on.

The sums are exact (integers in units of 2⁻¹⁰⁷⁴, a float's smallest step), and the
distance their one rounded quotient: a function of s, α and R alone, whatever the order
the clients came in, so a run resumed from its checkpoint (which holds s and R) records
the same figures to the last bit as the run that went on.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
from torch import Tensor

EXACT = 1074  # 2⁻¹⁰⁷⁴ is a float's smallest step: every float is a whole number of them


def exact(x: float) -> int:
    """`x` in units of 2⁻¹⁰⁷⁴, exactly."""
    n, d = x.as_integer_ratio()  # d is a power of 2
    return n << (EXACT + 1 - d.bit_length())


class AverageBias:
    """Σ_k |α_k − s_k/R| for the sums s of R rounds' weight distributions (`add`)."""

    def __init__(self, alpha: Tensor) -> None:
        self.alpha = alpha.double().numpy()
        self.alpha_total = sum(exact(a) for a in self.alpha.tolist())
        self.sums = np.zeros(len(self.alpha))
        self.sums_total = 0
        self.rounds = 0
        self.ahead: dict[int, tuple[float, int]] = {}  # k → s_k and exact(s_k), while ahead
        self.alpha_ahead = 0
        self.sums_ahead = 0
        # (s_k/α_k when queued, k): one entry per client ahead, at most its current
        # s_k/α_k, so that it comes out no later than the client falls back
        self.queue: list[tuple[float, int]] = []

    @classmethod
    def of(cls, alpha: Tensor, sums: Tensor, rounds: int) -> AverageBias:
        """The state after `rounds` rounds whose distributions summed to `sums`."""
        out = cls(alpha)
        out.sums = sums.double().numpy().copy()
        out.rounds = rounds
        ids = np.flatnonzero(out.sums)
        out.sums_total = sum(exact(s) for s in out.sums[ids].tolist())
        out._place(ids)
        return out

    def add(self, ids: np.ndarray, p: np.ndarray) -> None:
        """One more round whose distribution is `p` on the clients `ids` (distinct)."""
        before = self.sums[ids].tolist()
        self.sums[ids] += p
        after = self.sums[ids].tolist()
        self.sums_total += sum(map(exact, after)) - sum(map(exact, before))
        self.rounds += 1
        self._place(ids)
        self._fall_back()

    def distance(self) -> float:
        """Σ_k |α_k − s_k/R|."""
        r = self.rounds
        below = r * self.alpha_ahead - self.sums_ahead  # Σ d_k over the clients ahead, < 0
        return (r * self.alpha_total - self.sums_total - 2 * below) / (r << EXACT)

    def _due(self, k: int, s: float) -> float:
        """The R from which client k, its sum s, no longer runs ahead."""
        a = float(self.alpha[k])
        return s / a if a > 0 else math.inf

    def _place(self, ids: np.ndarray) -> None:
        """Update the clients `ids`, whose sums changed: ahead or not at the current R."""
        for k, s in zip(ids.tolist(), self.sums[ids].tolist(), strict=True):
            was = self.ahead.get(k)
            if was is not None:  # its queued entry comes out earlier: checked then
                self.ahead[k] = (s, exact(s))
                self.sums_ahead += self.ahead[k][1] - was[1]
            elif (due := self._due(k, s)) > self.rounds:
                self.ahead[k] = (s, exact(s))
                self.alpha_ahead += exact(float(self.alpha[k]))
                self.sums_ahead += self.ahead[k][1]
                heapq.heappush(self.queue, (due, k))

    def _fall_back(self) -> None:
        """Take out the clients ahead that R has caught up with; queue again, at their
        current sums, those still ahead."""
        queue, r = self.queue, self.rounds
        while queue and queue[0][0] <= r:
            _, k = heapq.heappop(queue)
            s, exact_s = self.ahead[k]
            if (due := self._due(k, s)) > r:
                heapq.heappush(queue, (due, k))
            else:
                del self.ahead[k]
                self.alpha_ahead -= exact(float(self.alpha[k]))
                self.sums_ahead -= exact_s
