"""Each client's local optimum F*_k: the smallest regularised logistic loss on its own
training data, computed once (CA-Fed's F̂*, as its authors' code computes it with
scikit-learn's `LogisticRegression(multi_class="multinomial")`, C = 1).

    (W*, b*) = argmin  Σ_i CE(W x_i + b, y_i) + (l2 / 2) ‖W‖²      (b unpenalised)
    F*_k     = (1 / n_k) Σ_i CE(W* x_i + b*, y_i)

with a softmax over all the dataset's classes (two logits for a binary task, which is
scikit-learn's multinomial parametrisation: its penalty on a one-logit model would be
l2/4 ‖w‖²). The objective is convex; it is minimised in float64 until every gradient
entry is below 1e-9, by Newton's method with the exact Hessian for small models (a few
steps) and by L-BFGS above `NEWTON_MAX_PARAMS` parameters: the value is exact to far
below the losses' own precision. A client whose training labels are all one class has no finite
minimiser (b grows without bound); its F*_k is 0, the infimum (the authors' code also
puts 0 there).
"""

from __future__ import annotations

import torch
from torch import Tensor
from torch.nn import functional as F

GRADIENT_TOLERANCE = 1e-9
NEWTON_MAX_PARAMS = 2048  # above this, L-BFGS: a Hessian of p² floats per client is too big
NEWTON_MAX_ITERATIONS = 100
LBFGS_MAX_ITERATIONS = 10_000


def local_optima(x: Tensor, y: Tensor, offsets: Tensor, n_classes: int, l2: float = 1.0) -> Tensor:
    """F*_k (float64, N) for the clients whose train rows are offsets[k]:offsets[k+1]."""
    out = torch.zeros(len(offsets) - 1, dtype=torch.float64)
    features = x.detach().cpu()
    labels = y.detach().cpu().long()
    for k in range(len(out)):
        lo, hi = int(offsets[k]), int(offsets[k + 1])
        if hi > lo and len(labels[lo:hi].unique()) > 1:
            out[k] = optimum(features[lo:hi], labels[lo:hi], n_classes, l2)
    return out


def optimum(x: Tensor, y: Tensor, n_classes: int, l2: float) -> float:
    """The mean cross-entropy at the minimiser of the regularised objective above."""
    x = x.double().flatten(1)
    n_params = n_classes * (x.shape[1] + 1)
    solve = _newton if n_params <= NEWTON_MAX_PARAMS else _lbfgs
    weight, bias = solve(x, y, n_classes, l2)
    return float(F.cross_entropy(x @ weight.T + bias, y))


def _objective(x: Tensor, y: Tensor, weight: Tensor, bias: Tensor, l2: float) -> Tensor:
    return (
        F.cross_entropy(x @ weight.T + bias, y, reduction="sum") + 0.5 * l2 * weight.square().sum()
    )


def _newton(x: Tensor, y: Tensor, n_classes: int, l2: float) -> tuple[Tensor, Tensor]:
    """Newton's method with the exact Hessian Σ_i (diag(s_i) − s_i s_iᵀ) ⊗ x̃_i x̃_iᵀ
    (x̃ = (x, 1), s = softmax) plus l2 on the weights, halving steps that do not lower
    the objective. The Hessian is singular along shifting every class's bias alike (the
    loss ignores it); the least-squares step leaves that direction alone."""
    n, f = x.shape
    xt = torch.cat([x, torch.ones(n, 1, dtype=x.dtype)], dim=1)
    theta = torch.zeros(n_classes, f + 1, dtype=x.dtype)  # (W | b)
    penalty = torch.ones_like(theta)
    penalty[:, -1] = 0.0
    onehot = F.one_hot(y, n_classes).to(x.dtype)

    def value(th: Tensor) -> Tensor:
        return _objective(x, y, th[:, :-1], th[:, -1], l2)

    for _ in range(NEWTON_MAX_ITERATIONS):
        s = torch.softmax(xt @ theta.T, dim=1)
        grad = (s - onehot).T @ xt + l2 * penalty * theta
        if float(grad.abs().max()) < GRADIENT_TOLERANCE:
            break
        a = torch.diag_embed(s) - s[:, :, None] * s[:, None, :]  # (n, C, C)
        hess = torch.einsum("icd,if,ig->cfdg", a, xt, xt).reshape(theta.numel(), -1)
        hess += torch.diag(l2 * penalty.flatten())
        step = torch.linalg.lstsq(hess, grad.flatten()[:, None]).solution.view_as(theta)
        current, t = value(theta), 1.0
        while t > 1e-10 and value(theta - t * step) > current:
            t /= 2
        theta = theta - t * step
    return theta[:, :-1], theta[:, -1]


def _lbfgs(x: Tensor, y: Tensor, n_classes: int, l2: float) -> tuple[Tensor, Tensor]:
    """L-BFGS with a strong-Wolfe line search, for models too large for a Hessian."""
    weight = torch.zeros(n_classes, x.shape[1], dtype=x.dtype, requires_grad=True)
    bias = torch.zeros(n_classes, dtype=x.dtype, requires_grad=True)
    solver = torch.optim.LBFGS(
        [weight, bias],
        lr=1.0,
        max_iter=LBFGS_MAX_ITERATIONS,
        tolerance_grad=GRADIENT_TOLERANCE,
        tolerance_change=0.0,
        history_size=50,
        line_search_fn="strong_wolfe",
    )

    def closure() -> Tensor:
        solver.zero_grad()
        value = _objective(x, y, weight, bias, l2)
        value.backward()
        return value

    solver.step(closure)
    return weight.detach(), bias.detach()
