"""The mechanisms on a round's updates, checked by hand with a fixed noise seed; adaptive
clipping on a made-up stream of norms."""

import math

import numpy as np
import pytest
import torch
from numpy.testing import assert_allclose

from worker.engine.privacy.mechanism import AdaptiveClip, Mechanism, clipped
from worker.engine.privacy.section import PrivacySection
from worker.engine.rng import torch_gen

SEED = 7
# Client 0's update has norm 5 (clipped to C = 1: (0.6, 0.8)); client 1's norm 0.5 (kept).
DELTAS = torch.tensor([[3.0, 4.0], [0.3, 0.4]], dtype=torch.float64)
CLIPPED = np.array([[0.6, 0.8], [0.3, 0.4]])


def mechanism(kind: str, **params: object) -> Mechanism:
    section = PrivacySection.model_validate({"kind": kind, kind: params})
    return Mechanism(section, k=2, seed=SEED)


def test_a_two_client_round_is_clipped_and_its_sum_noised() -> None:
    m = mechanism("central", clip_norm=1.0, noise_multiplier=0.5)

    rows, metrics = m.privatise(3, DELTAS)

    # the noise of round 3: z ~ N(0, (σC)²) = 0.5·N(0, 1), drawn from (seed, "privacy", 3)
    z = 0.5 * torch.randn(2, generator=torch_gen(SEED, "privacy", 3), dtype=torch.float64)
    assert_allclose(rows.sum(0), CLIPPED.sum(0) + z.numpy())  # (0.9, 1.2) + z
    assert_allclose(rows.mean(0), [0.45, 0.6] + z.numpy() / 2)  # what FedAvg applies
    assert metrics == {"clip_norm": 1.0}


def test_local_noise_is_each_clients_own() -> None:
    m = mechanism("local", clip_norm=1.0, noise_multiplier=2.0)

    rows, _ = m.privatise(0, DELTAS)

    noise = 2.0 * torch.randn(2, 2, generator=torch_gen(SEED, "privacy", 0), dtype=torch.float64)
    assert_allclose(rows, CLIPPED + noise.numpy())


def test_the_same_round_draws_the_same_noise() -> None:
    a, _ = mechanism("central").privatise(5, DELTAS)
    b, _ = mechanism("central").privatise(5, DELTAS)
    c, _ = mechanism("central").privatise(6, DELTAS)

    assert torch.equal(a, b) and not torch.equal(a, c)


def test_degenerate_updates() -> None:
    zero, norms = clipped(torch.zeros(3, 4), 1.0)
    empty, metrics = mechanism("central").privatise(0, torch.zeros(0, 4))

    assert torch.equal(zero, torch.zeros(3, 4)) and torch.equal(norms, torch.zeros(3))
    assert empty.shape == (0, 4) and metrics == {"clip_norm": 1.0}


def test_one_adaptive_step_by_hand() -> None:
    clip = AdaptiveClip(norm=4.0, quantile=0.5, lr=0.2, count_stddev=0.5)
    gen = torch_gen(SEED, "privacy", 0)
    noise = 0.5 * float(
        torch.randn((), generator=torch_gen(SEED, "privacy", 0), dtype=torch.float64)
    )

    clip.update(torch.tensor([1.0, 3.0, 5.0, 7.0]), gen)

    # 2 of 4 norms ≤ C = 4: b̄ = (2 + noise)/4, C ← 4·exp(−0.2·(b̄ − 0.5))
    assert clip.norm == pytest.approx(4.0 * math.exp(-0.2 * ((2 + noise) / 4 - 0.5)))


@pytest.mark.parametrize("quantile", [0.2, 0.5, 0.8])
def test_adaptive_clipping_tracks_its_quantile(quantile: float) -> None:
    # a made-up stream: 200 norms a round, uniform on [0, 10]: its γ-quantile is 10γ
    clip = AdaptiveClip(norm=0.1, quantile=quantile, lr=0.2, count_stddev=10.0)
    stream = np.random.default_rng(0)
    seen = []
    for t in range(400):
        norms = torch.from_numpy(stream.uniform(0, 10, 200))
        clip.update(norms, torch_gen(SEED, "clip", t))
        seen.append(clip.norm)

    assert np.mean(seen[-200:]) == pytest.approx(10 * quantile, abs=0.3)
    assert np.mean(seen[:5]) < 1  # it started at 0.1 and had to climb


def test_adaptive_noise_multiplier_leaves_sigma_in_total() -> None:
    m = mechanism("central", noise_multiplier=1.0, clipping="adaptive", count_stddev=1.0)

    # (σ_Δ⁻² + (2σ_b)⁻²)^(−1/2) = σ (Andrew et al. 2021, Theorem 1)
    assert (m.sigma**-2 + 2.0**-2) ** -0.5 == pytest.approx(1.0)
    assert m.sigma == pytest.approx((1 - 0.25) ** -0.5)
