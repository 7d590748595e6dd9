import numpy as np
import pytest
import torch

from worker.engine.data.population import (
    CAFED_TYPES,
    client_types,
    draw_cafed_population,
    type_counts,
)


def test_type_counts_floor_then_top_up_by_hand() -> None:
    # 24·(0, ½, 0, ¼, ¼, 0) is whole; 7·(...) floors to (0, 3, 0, 1, 1, 0), and the two
    # clients left go to the first two nonzero types
    assert type_counts(24, CAFED_TYPES).tolist() == [0, 12, 0, 6, 6, 0]
    assert type_counts(7, CAFED_TYPES).tolist() == [0, 4, 0, 2, 1, 0]


def test_types_follow_the_permutation_blocks() -> None:
    order = np.random.default_rng(3).permutation(8)

    types = client_types(8, CAFED_TYPES, np.random.default_rng(3))

    # counts (0, 4, 0, 2, 2, 0): the first 4 of the permutation are available and
    # shifting (0, 1), the next 2 unavailable and stable (1, 0), the last 2 (1, 1)
    assert types[order[:4]].tolist() == [[0, 1]] * 4
    assert types[order[4:6]].tolist() == [[1, 0]] * 2
    assert types[order[6:]].tolist() == [[1, 1]] * 2


def test_stable_and_unstable_lambda_by_hand() -> None:
    joint = np.array([[0.0, 0.0, 0.5], [0.5, 0.0, 0.0]])  # available unstable, unavailable stable

    pop = draw_cafed_population(2, 0.4, 0.9, np.random.default_rng(0), joint)

    # π = 0.9: λ = max(−0.9, 1 − 1/0.9 + ε, 1 − 1/0.1 + ε) = −1/9 + ε; π = 0.1: λ = 0.9
    pairs = sorted(zip(pop.pi.tolist(), pop.lam.tolist(), strict=True))
    assert pairs == [(pytest.approx(0.1), 0.9), (pytest.approx(0.9), pytest.approx(-1 / 9 + 1e-8))]
    assert pop.pi.dtype == pop.lam.dtype == torch.float64


def test_population_shares_and_shifting_lambda_spread() -> None:
    pop = draw_cafed_population(400, 0.4, 0.9, np.random.default_rng(1))

    available = pop.pi > 0.5
    stable = pop.lam == 0.9
    assert int(available.sum()) == 200 and int(stable.sum()) == 100
    assert not (available & stable).any()
    shifting = pop.lam[~stable]
    # λ = (z + 0.01) / 2 with z ~ N(0, 0.01²): mean 0.005, std 0.005
    assert abs(float(shifting.mean()) - 0.005) < 0.001
    assert abs(float(shifting.std()) - 0.005) < 0.001
