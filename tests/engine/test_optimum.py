"""Local optima F*_k (CA-Fed's F̂* as its authors compute it): exact against a
one-dimensional hand solution and against scikit-learn's multinomial logistic
regression (the authors' own solver)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

from worker.engine.training.optimum import local_optima, optimum


def test_symmetric_pair_by_hand() -> None:
    """x = (−1, 1), y = (0, 1): by symmetry W = (−a, a), b = 0, and the objective
    2·log(1 + e^(−2a)) + a² is stationary where a = 2σ(−2a)."""
    lo, hi = 0.0, 2.0
    for _ in range(100):  # bisection on a − 2σ(−2a), increasing in a
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mid - 2 / (1 + math.exp(2 * mid)) < 0 else (lo, mid)
    expected = math.log1p(math.exp(-2 * lo))

    value = optimum(torch.tensor([[-1.0], [1.0]]), torch.tensor([0, 1]), 2, 1.0)

    assert value == pytest.approx(expected, abs=1e-9)


def test_binary_clients_equal_scikit_learns_multinomial_fit() -> None:
    """A two-logit softmax with C = 1 is a one-logit logistic regression with C = 2."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3 * 40, 5))
    y = (rng.random(3 * 40) < 1 / (1 + np.exp(-x @ rng.normal(size=5)))).astype(np.int64)
    offsets = torch.tensor([0, 40, 80, 120])

    ours = local_optima(torch.tensor(x), torch.tensor(y), offsets, n_classes=2)

    for k in range(3):
        xs, ys = x[40 * k : 40 * (k + 1)], y[40 * k : 40 * (k + 1)]
        fit = LogisticRegression(C=2.0, tol=1e-12, max_iter=10_000).fit(xs, ys)
        assert float(ours[k]) == pytest.approx(log_loss(ys, fit.predict_proba(xs)), abs=1e-7)


def test_ten_classes_equal_scikit_learn() -> None:
    x, y = load_digits(return_X_y=True)
    x, y = x[:200] / 16, y[:200]
    fit = LogisticRegression(C=1.0, tol=1e-12, max_iter=100_000).fit(x, y)

    value = optimum(torch.tensor(x), torch.tensor(y), 10, 1.0)

    assert value == pytest.approx(log_loss(y, fit.predict_proba(x)), abs=1e-6)


def test_a_one_class_client_has_optimum_zero() -> None:
    x = torch.randn(6, 2)
    y = torch.tensor([1, 1, 1, 0, 1, 0])

    values = local_optima(x, y, torch.tensor([0, 3, 6]), n_classes=2)

    assert values[0] == 0.0 and values[1] > 0.1
