"""What the server can estimate from what it observes (CA-Fed's estimators).

Availability: a (7, N) tensor of counts, updated once per round from the available
mask; π̂ and λ̂ are Beta-prior (Bayesian) means of those counts. Loss: an AR filter of
the losses clients report, with its running minimum.
"""

from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor

ON, ROUNDS, FROM_ON, ON_OFF, FROM_OFF, OFF_ON, LAST = range(7)


def empty_counts(n: int) -> Tensor:
    counts = torch.zeros(7, n, dtype=torch.float64)
    counts[LAST] = -1.0  # no previous observation
    return counts


def observe(counts: Tensor, available: Tensor) -> Tensor:
    """Counts after one more round with availability mask `available`."""
    out = counts.clone()
    on = available.cpu().double()
    seen = counts[LAST] >= 0
    was_on = seen & (counts[LAST] == 1)
    was_off = seen & (counts[LAST] == 0)
    out[ON] += on
    out[ROUNDS] += 1
    out[FROM_ON] += was_on.double()
    out[ON_OFF] += (was_on & (on == 0)).double()
    out[FROM_OFF] += was_off.double()
    out[OFF_ON] += (was_off & (on == 1)).double()
    out[LAST] = on
    return out


def pi_hat(counts: Tensor, prior: float) -> Tensor:
    """Posterior mean of π under a Beta(prior, prior) prior."""
    return (prior + counts[ON]) / (2 * prior + counts[ROUNDS])


def lam_hat(counts: Tensor, prior: float) -> Tensor:
    """λ̂ = 1 − P̂(on→off) − P̂(off→on), each a Beta(prior, prior) posterior mean."""
    p10 = (prior + counts[ON_OFF]) / (2 * prior + counts[FROM_ON])
    p01 = (prior + counts[OFF_ON]) / (2 * prior + counts[FROM_OFF])
    return 1 - p10 - p01


class AvailabilityEstimate:
    """π and λ per client: read from the availability model (`oracle`) or estimated
    from the counts (`bayesian`). π is floored so that α/π stays finite."""

    FLOOR = 1e-6

    def __init__(
        self, kind: Literal["oracle", "bayesian"], prior: float, pi: Tensor, lam: Tensor | None
    ) -> None:
        self.kind, self.prior = kind, prior
        self.true_pi = pi.double().cpu()
        self.true_lam = torch.zeros_like(self.true_pi) if lam is None else lam.double().cpu()

    def pi(self, counts: Tensor) -> Tensor:
        p = self.true_pi if self.kind == "oracle" else pi_hat(counts, self.prior)
        return p.clamp(min=self.FLOOR)

    def lam(self, counts: Tensor) -> Tensor:
        return self.true_lam if self.kind == "oracle" else lam_hat(counts, self.prior)


def filter_losses(
    loss: Tensor, loss_min: Tensor, started: bool, ids: Tensor, new: Tensor, beta: float
) -> tuple[Tensor, Tensor]:
    """Fold the losses `new` reported by clients `ids` into the estimates (F̂, F̂*), as
    CA-Fed's authors' code does.

    The first reports (`started` False) set F̂_k = loss_k for the reporters and, for
    every other client, the reporters' mean (no evidence of a difference); F̂* starts
    equal to F̂. Later reports smooth: F̂_k ← β F̂_k + (1 − β) loss_k, and F̂*_k, where it
    is a running minimum, takes min(F̂*_k, loss_k). Clients that do not report keep
    their estimates. Returns (F̂, F̂*).
    """
    new = new.double().cpu()
    if not started:
        loss = torch.full_like(loss, float(new.mean()))
        loss[ids] = new
        return loss, loss.clone()
    loss, loss_min = loss.clone(), loss_min.clone()
    loss[ids] = beta * loss[ids] + (1 - beta) * new
    loss_min[ids] = torch.minimum(loss_min[ids], new)
    return loss, loss_min
