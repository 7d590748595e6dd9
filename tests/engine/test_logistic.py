"""Model `logistic`: one logit, binary cross-entropy, class 1 iff the logit is > 0."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
import torch
from torch import Tensor, nn
from torch.testing import assert_close

from worker.engine import ConfigError, ListSink, build_config, simulate
from worker.engine.loop import Simulation
from worker.engine.models import build_model, objective
from worker.engine.training.evaluate import evaluate
from worker.engine.training.flat import FlatModel
from worker.engine.training.local import LocalSpec, train_sequential, train_vmap

# logit z = w·x + b with w = (0.5, −0.25), b = 0.1
THETA = torch.tensor([0.5, -0.25, 0.1])
X = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [2.0, -1.0]])
Y = torch.tensor([1, 0, 0])
Z = [0.1, -0.525, 1.35]


def logistic_model() -> FlatModel:
    cfg = build_config({}, ["model.name=logistic"]).model
    return FlatModel(build_model(cfg, (2,), 2), objective(cfg, "classification"))


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def test_loss_gradient_and_accuracy_by_hand() -> None:
    model = logistic_model()
    # ℓ = log(1 + e^{−z}) for y = 1, log(1 + e^{z}) for y = 0
    per_sample = [math.log1p(math.exp(-z if y else z)) for z, y in zip(Z, Y.tolist(), strict=True)]
    # ∂ℓ/∂(w, b) = (σ(z) − y)·(x, 1)
    residual = [sigmoid(z) - y for z, y in zip(Z, Y.tolist(), strict=True)]
    grad = [sum(r * float(x[j]) for r, x in zip(residual, X, strict=True)) / 3 for j in range(2)]
    grad.append(sum(residual) / 3)

    theta = THETA.clone().requires_grad_(True)
    loss = model.loss(theta, X, Y)
    (g,) = torch.autograd.grad(loss, theta)

    assert model.objective == "binary"
    assert_close(loss, torch.tensor(sum(per_sample) / 3))
    assert_close(g, torch.tensor(grad))
    result = evaluate(model, THETA, X, Y, batch=2)
    assert result.correct is not None
    assert result.correct.tolist() == [1.0, 1.0, 0.0]  # z₃ = 1.35 > 0 predicts 1, not 0
    assert result.acc == pytest.approx(2 / 3)
    assert result.loss == pytest.approx(sum(per_sample) / 3, rel=1e-6)


@pytest.mark.parametrize("train", [train_vmap, train_sequential])
def test_one_sgd_step_on_each_backend(train: Callable[..., tuple[Tensor, Tensor]]) -> None:
    model = logistic_model()
    assert model.stacked((2,)) is not None  # vmap runs the stacked form
    spec = LocalSpec(
        w=THETA, batches=torch.tensor([[[0, 1, 2]], [[2, 2, 2]]]), mask=torch.ones(2, 1), lr=1.0
    )

    deltas, losses = train(model, X, Y, spec)

    theta = THETA.clone().requires_grad_(True)
    (g0,) = torch.autograd.grad(model.loss(theta, X, Y), theta)
    # client 1: three copies of sample 3: ∂ℓ = (σ(1.35) − 0)·(2, −1, 1)
    g1 = sigmoid(1.35) * torch.tensor([2.0, -1.0, 1.0])
    assert_close(deltas, -torch.stack([g0, g1]))
    assert_close(losses[1], torch.tensor(math.log1p(math.exp(1.35))))


def test_initial_weights_are_torch_linear_from_the_seed() -> None:
    cfg = build_config({"seed": 12}, ["model.name=logistic", "data.dataset=synthetic_clustered"])
    assert cfg.data.synthetic_clustered.dimension == 10  # type: ignore[attr-defined]
    torch.manual_seed(12)
    expected = nn.Linear(10, 1)

    w = Simulation(cfg).w

    assert torch.equal(w, torch.cat([expected.weight.detach().flatten(), expected.bias.detach()]))


def test_needs_a_two_class_dataset() -> None:
    with pytest.raises(
        ConfigError, match=r"^model\.name: logistic needs a 2-class dataset; digits has 10$"
    ):
        build_config({}, ["model.name=logistic", "data.dataset=digits"])


def test_learns_on_synthetic_clustered() -> None:
    cfg = build_config(
        {"rounds": 30, "eval": {"every": 1, "client_every": 10}}, ["model.name=logistic"]
    )
    sink = ListSink()

    simulate(cfg, sink)

    first, last = sink.records[0].metrics, sink.records[-1].metrics
    assert last["test_acc"] > first["test_acc"] + 0.05
    assert last["test_loss"] < first["test_loss"]
    client_acc = sink.records[-1].client_acc
    assert client_acc is not None and len(client_acc) == cfg.data.n_clients
    assert all(0 <= a <= 1 for a in client_acc)
