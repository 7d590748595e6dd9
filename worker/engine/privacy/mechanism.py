"""The privacy mechanisms on a round's (K, d) client updates, before the algorithm
aggregates them (`privacy.kind`, `section.py`):

- central: each update clipped to C; noise z ~ N(0, (σ_Δ C)² I) on their sum, added as
  z/K to each of the K rows, so that the algorithm's uniform mean is
  (Σ_i clip(Δ_i) + z)/K (`guarantee.py` names the algorithms that aggregate so);
- local: each update clipped to C and given its own N(0, (σC)² I).

Noise for round t comes from the generator (seed, "privacy", t): runs reproduce.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor

from worker.engine.privacy.section import CentralParams, PrivacySection
from worker.engine.rng import torch_gen


def clipped(deltas: Tensor, norm: float) -> tuple[Tensor, Tensor]:
    """Each row scaled to L2 norm at most `norm`; and the rows' norms before."""
    norms = deltas.norm(dim=1)
    scale = (norm / norms.clamp_min(torch.finfo(deltas.dtype).tiny)).clamp(max=1.0)
    return deltas * scale[:, None], norms


class AdaptiveClip:
    """C tracking the γ-quantile of the updates' norms (Andrew et al. 2021, "Differentially
    Private Learning with Adaptive Clipping", Algorithm 1 with the geometric update):
    b̄ = (#{i: ‖Δ_i‖ ≤ C} + N(0, σ_b²))/K, then C ← C·exp(−η_C (b̄ − γ))."""

    def __init__(self, norm: float, quantile: float, lr: float, count_stddev: float) -> None:
        self.norm = norm
        self.quantile = quantile
        self.lr = lr
        self.count_stddev = count_stddev

    def update(self, norms: Tensor, gen: torch.Generator) -> None:
        """The next C after a round whose updates had these norms."""
        if len(norms) == 0:
            return
        unclipped = float((norms <= self.norm).sum())
        noise = float(torch.randn((), generator=gen, dtype=torch.float64)) * self.count_stddev
        share = (unclipped + noise) / len(norms)
        self.norm *= math.exp(-self.lr * (share - self.quantile))


def count_stddev(params: CentralParams, k: int) -> float:
    """σ_b: as set, or K/20 (Andrew et al.'s choice)."""
    return params.count_stddev if params.count_stddev is not None else k / 20


def update_noise_multiplier(params: CentralParams, k: int) -> float:
    """σ_Δ of the updates: σ, or with adaptive clipping (σ⁻² − (2σ_b)⁻²)^(−1/2), so that
    the count and the sum together cost one Gaussian of multiplier σ (Andrew et al.,
    Theorem 1); the run config refuses 2σ_b ≤ σ."""
    sigma = params.noise_multiplier
    if params.clipping == "fixed":
        return sigma
    return float((sigma**-2 - (2 * count_stddev(params, k)) ** -2) ** -0.5)


# (K, d) tensors `Mechanism.privatise` holds at once beside the deltas it is given: the
# clipped rows and the noised ones (central: the noise is one d-vector; local: a row
# each). The run's estimate counts them (`resources/memory.py`).
PRIVATISED_ROWS = {"central": 2, "local": 3}


class Mechanism:
    """The run's mechanism (`privacy.kind` central or local), K clients a round."""

    def __init__(self, section: PrivacySection, k: int, seed: int) -> None:
        self.kind = section.kind
        self.seed = seed
        params = section.mechanism()
        assert params is not None
        self.params = params
        self.sigma = params.noise_multiplier
        self.adaptive: AdaptiveClip | None = None
        if isinstance(params, CentralParams):
            self.sigma = update_noise_multiplier(params, k)
            if params.clipping == "adaptive":
                self.adaptive = AdaptiveClip(
                    params.clip_norm,
                    params.target_quantile,
                    params.clip_lr,
                    count_stddev(params, k),
                )

    @property
    def clip_norm(self) -> float:
        return self.params.clip_norm if self.adaptive is None else self.adaptive.norm

    def privatise(self, t: int, deltas: Tensor) -> tuple[Tensor, dict[str, float]]:
        """Round t's updates as the server may use them, and the round's metrics."""
        norm = self.clip_norm
        metrics = {"clip_norm": norm}
        if len(deltas) == 0:
            return deltas, metrics
        rows, norms = clipped(deltas, norm)
        gen = torch_gen(self.seed, "privacy", t)
        std = self.sigma * norm
        if self.kind == "local":
            noise = torch.randn(rows.shape, generator=gen, dtype=rows.dtype) * std
            return rows + noise.to(rows.device), metrics
        z = torch.randn(rows.shape[1], generator=gen, dtype=rows.dtype) * std
        rows = rows + (z / len(rows)).to(rows.device)
        if self.adaptive is not None:
            self.adaptive.update(norms.cpu(), gen)
        return rows, metrics

    def state_dict(self) -> dict[str, Any]:
        return {"clip_norm": self.clip_norm}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if self.adaptive is not None:
            self.adaptive.norm = float(state["clip_norm"])
