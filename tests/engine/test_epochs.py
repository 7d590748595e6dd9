"""`client.unit = "epochs"`: each epoch's last batch holds only the rows left over, and
its padding to B rows changes nothing (gradients, losses, batch-norm statistics)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from torch import Tensor, nn
from torch.testing import assert_close

from worker.engine.training.batches import Batches, batch_indices
from worker.engine.training.flat import FlatModel
from worker.engine.training.local import LocalSpec, train_sequential, train_vmap

Train = Callable[[FlatModel, Tensor, Tensor, LocalSpec], tuple[Tensor, Tensor]]
X = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [2.0, -1.0], [0.5, 0.5], [-2.0, 1.5]])
Y = torch.tensor([0, 1, 1, 0, 1])


def linear() -> FlatModel:  # built of stacked layers: vmap runs it stacked
    torch.manual_seed(0)
    return FlatModel(nn.Sequential(nn.Linear(2, 2)), "classification")


def tanh_net() -> FlatModel:  # tanh does not stack: vmap runs it through torch.func
    torch.manual_seed(0)
    return FlatModel(nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 2)), "classification")


def one_epoch() -> Batches:
    """Client of 5 rows, B = 2: batches of 2, 2 and 1 real rows."""
    return batch_indices(
        torch.tensor([0]), torch.tensor([5]), 1, "epochs", 2, torch.Generator().manual_seed(3)
    )


def row_grad(model: FlatModel, w: Tensor, rows: Tensor) -> Tensor:
    theta = w.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(model.loss(theta, X[rows], Y[rows]), theta)
    return g


def test_epoch_of_five_rows_in_batches_of_two() -> None:
    batches = one_epoch()

    assert batches.mask.tolist() == [[1.0, 1.0, 1.0]]
    assert batches.real is not None and batches.real.tolist() == [[2, 2, 1]]
    assert sorted(batches.rows[0].flatten()[:5].tolist()) == [0, 1, 2, 3, 4]


def test_no_padding_no_weights() -> None:
    gen = torch.Generator().manual_seed(0)
    exact = batch_indices(torch.tensor([0, 6]), torch.tensor([6, 4]), 2, "epochs", 2, gen)
    assert exact.real is None and exact.mask.sum().item() == 2 * (3 + 2)


@pytest.mark.parametrize("make", [linear, tanh_net])
@pytest.mark.parametrize("train", [train_vmap, train_sequential])
def test_last_step_is_the_gradient_of_its_one_row(
    make: Callable[[], FlatModel], train: Train
) -> None:
    model, batches = make(), one_epoch()
    last_row, pad = batches.rows[0, 2]
    assert last_row != pad  # the padding row is another one: it would change the gradient
    w = model.initial()
    only_last = LocalSpec(
        w=w, batches=batches.rows, mask=torch.tensor([[0.0, 0.0, 1.0]]), lr=1.0, real=batches.real
    )

    deltas, _ = train(model, X, Y, only_last)

    assert_close(deltas[0], -row_grad(model, w, last_row[None]))
    assert not torch.allclose(deltas[0], -row_grad(model, w, batches.rows[0, 2]))


@pytest.mark.parametrize("make", [linear, tanh_net])
@pytest.mark.parametrize("train", [train_vmap, train_sequential])
def test_mean_train_loss_counts_the_real_rows(make: Callable[[], FlatModel], train: Train) -> None:
    model, batches = make(), one_epoch()
    w = model.initial()
    frozen = LocalSpec(w=w, batches=batches.rows, mask=batches.mask, lr=0.0, real=batches.real)

    _, losses = train(model, X, Y, frozen)

    rows = batches.rows[0]
    with torch.no_grad():
        per_row = nn.functional.cross_entropy(model.forward(w, X), Y, reduction="none")
    # (mean of batch 1 + mean of batch 2 + the last row) / 3 steps
    steps = [per_row[rows[0]].mean(), per_row[rows[1]].mean(), per_row[rows[2, 0]]]
    assert_close(losses[0], torch.stack(steps).mean())


class BatchNormNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.bn = nn.BatchNorm1d(2)

    def forward(self, x: Tensor) -> Tensor:
        return self.bn(self.fc(x))


@pytest.mark.parametrize("backend", ["vmap-stacked", "vmap-func", "sequential"])
def test_padding_rows_change_nothing(backend: str) -> None:
    """Two clients of 5 and 8 rows, 2 epochs in batches of 3 (real rows 3, 2, 3, 2 and
    3, 3, 2, 3, 3, 2), with momentum and weight decay: padding with other rows gives
    the same result, bit for bit."""
    torch.manual_seed(1)
    x, y = torch.randn(13, 2), torch.randint(0, 2, (13,))
    if backend == "sequential":
        torch.manual_seed(0)
        model = FlatModel(BatchNormNet(), "classification")
    else:
        model = linear() if backend == "vmap-stacked" else tanh_net()
    train = train_sequential if backend == "sequential" else train_vmap
    batches = batch_indices(
        torch.tensor([0, 5]), torch.tensor([5, 8]), 2, "epochs", 3, torch.Generator().manual_seed(0)
    )
    assert batches.real is not None
    assert batches.real.tolist() == [[3, 2, 3, 2, 3, 3], [3, 3, 2, 3, 3, 2]]
    padding = torch.arange(3) >= batches.real[..., None]
    repadded = torch.where(padding, (batches.rows + 1) % 13, batches.rows)
    assert not torch.equal(repadded, batches.rows)

    def run(rows: Tensor) -> tuple[Tensor, Tensor, list[Tensor]]:
        for b in model.buffers.values():
            b.zero_() if b.dtype == torch.long else b.fill_(0.5)
        spec = LocalSpec(
            w=model.initial(),
            batches=rows,
            mask=batches.mask,
            lr=0.1,
            momentum=0.9,
            weight_decay=1e-2,
            real=batches.real,
        )
        deltas, losses = train(model, x, y, spec)
        return deltas, losses, [b.clone() for b in model.buffers.values()]

    first, second = run(batches.rows), run(repadded)

    assert torch.equal(first[0], second[0]) and torch.equal(first[1], second[1])
    assert all(torch.equal(a, b) for a, b in zip(first[2], second[2], strict=True))
    assert float(first[0].abs().sum()) > 0
