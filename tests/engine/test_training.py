import pytest
import torch
from torch.testing import assert_close

from worker.engine.data import load_data
from worker.engine.models import build_model
from worker.engine.overrides import build_config
from worker.engine.training.batches import batch_indices
from worker.engine.training.flat import FlatModel
from worker.engine.training.local import LocalSpec, train_sequential, train_vmap


def test_step_batches_stay_inside_each_clients_rows() -> None:
    starts, sizes = torch.tensor([0, 10, 13]), torch.tensor([10, 3, 7])

    batches = batch_indices(starts, sizes, 4, "steps", 5, torch.Generator().manual_seed(0))
    rows = batches.rows

    assert rows.shape == (3, 4, 5) and bool(batches.mask.all()) and batches.real is None
    for k in range(3):
        assert bool((rows[k] >= starts[k]).all() and (rows[k] < starts[k] + sizes[k]).all())


def test_epoch_batches_cover_every_row_and_mask_short_clients() -> None:
    starts, sizes = torch.tensor([0, 10]), torch.tensor([10, 3])

    batches = batch_indices(starts, sizes, 2, "epochs", 4, torch.Generator().manual_seed(0))
    rows, mask = batches.rows, batches.mask

    # client 0: 2 epochs × ⌈10/4⌉ = 6 steps; client 1: 2 × ⌈3/4⌉ = 2 steps
    assert mask.sum(dim=1).tolist() == [6.0, 2.0]
    # real rows: client 0's epochs end with 10 − 2·4 = 2, client 1's with its 3
    assert batches.real is not None
    assert batches.real.tolist() == [[4, 4, 2, 4, 4, 2], [3, 3, 4, 4, 4, 4]]
    assert set(rows[0, :3].flatten().tolist()) == set(range(10))
    assert set(rows[1, :1].flatten().tolist()) == {10, 11, 12}


def test_one_sgd_step_on_the_scalar_model_by_hand() -> None:
    model = FlatModel(
        build_model(
            build_config(
                {}, ["model.name=scalar", "data.dataset=mean_estimation", "data.partition=iid"]
            ).model,
            (1,),
            1,
        ),
        "regression",
    )
    x, y = torch.zeros(2, 1), torch.tensor([1.0, -1.0])
    spec = LocalSpec(
        w=torch.tensor([0.5]), batches=torch.tensor([[[0]], [[1]]]), mask=torch.ones(2, 1), lr=0.01
    )

    deltas, losses = train_vmap(model, x, y, spec)

    # Δ = −η·2(x − ξ): client 0: −0.01·2·(0.5 − 1) = 0.01; client 1: −0.01·2·1.5 = −0.03
    assert_close(deltas, torch.tensor([[0.01], [-0.03]]))
    assert_close(losses, torch.tensor([0.25, 2.25]))


@pytest.mark.parametrize("model_name", ["linear", "mlp", "cnn", "lenet5"])
@pytest.mark.parametrize("unit", ["steps", "epochs"])
def test_vmap_equals_sequential(model_name: str, unit: str) -> None:
    cfg = build_config(
        {"data": {"dataset": "digits", "n_clients": 40, "partition": "dirichlet"}},
        [f"model.name={model_name}"],
    )
    data = load_data(cfg.data, seed=0)
    model = FlatModel(build_model(cfg.model, data.input_shape, data.n_classes), data.task)
    clients = torch.tensor([0, 3, 7, 12])
    batches = batch_indices(
        data.train_offsets[clients],
        data.sizes[clients],
        2,
        unit,
        8,
        torch.Generator().manual_seed(1),
    )
    w = model.initial()
    spec = LocalSpec(
        w=w,
        batches=batches.rows,
        mask=batches.mask,
        real=batches.real,
        lr=0.05,
        momentum=0.9,
        weight_decay=1e-3,
        prox_mu=0.1,
        correction=0.01 * torch.randn(4, len(w), generator=torch.Generator().manual_seed(2)),
        x_values=data.x_values,
    )

    d_vmap, l_vmap = train_vmap(model, data.x_train, data.y_train, spec)
    d_seq, l_seq = train_sequential(model, data.x_train, data.y_train, spec)

    assert_close(d_vmap, d_seq, atol=1e-5, rtol=1e-4)
    assert_close(l_vmap, l_seq, atol=1e-5, rtol=1e-4)
    assert float(d_vmap.abs().sum()) > 0
