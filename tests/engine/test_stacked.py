import math
import subprocess
import sys

import pytest
import torch
from torch import nn
from torch.testing import assert_close

from worker.engine.models import build_model
from worker.engine.overrides import build_config
from worker.engine.training.flat import FlatModel
from worker.engine.training.local import LocalSpec, train_sequential, train_vmap
from worker.engine.training.stacked import _linear, row_logits, stack


def zoo_model(name: str, shape: tuple[int, ...] = (1, 8, 8)) -> FlatModel:
    cfg = build_config({"model": {"name": name}, "data": {"dataset": "digits"}})
    return FlatModel(build_model(cfg.model, shape, 10), "classification")


@pytest.mark.parametrize("name", ["linear", "mlp", "cnn", "lenet5"])
def test_the_zoos_plain_models_stack(name: str) -> None:
    assert stack(zoo_model(name), (1, 8, 8)) is not None


def test_linear_model_on_feature_vectors_stacks() -> None:
    assert stack(zoo_model("linear", (20,)), (20,)) is not None


@pytest.mark.parametrize(
    "module",
    [
        nn.Sequential(nn.Flatten(), nn.Linear(64, 8), nn.Tanh(), nn.Linear(8, 10)),  # tanh
        nn.Sequential(nn.Conv2d(1, 4, 3, groups=1), nn.Conv2d(4, 4, 3, groups=2), nn.Flatten()),
        nn.Sequential(nn.Flatten(), nn.MaxPool1d(2), nn.Linear(32, 10)),  # pooling features
        nn.Sequential(nn.Conv2d(1, 2, 3)),  # ends on an image, not class scores
    ],
)
def test_models_with_other_layers_do_not_stack(module: nn.Module) -> None:
    assert stack(FlatModel(module, "classification"), (1, 8, 8)) is None


def test_scalar_batch_norm_and_regression_models_do_not_stack() -> None:
    cfg = build_config({}, ["model.name=scalar", "data.dataset=mean_estimation"])
    scalar = FlatModel(build_model(cfg.model, (1,), 1), "regression")
    with_bn = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.Flatten(), nn.Linear(72, 3))

    assert stack(scalar, (1,)) is None
    assert stack(FlatModel(with_bn, "classification"), (1, 8, 8)) is None
    assert stack(FlatModel(nn.Linear(4, 1), "regression"), (4,)) is None


def test_max_pooling_moves_before_the_relu() -> None:
    stacked = stack(zoo_model("cnn"), (1, 8, 8))
    assert stacked is not None

    order = [str(n.target) for n in stacked.graph.nodes if n.op != "placeholder"][:6]

    assert order == ["conv1", "pool", str(torch.relu), "conv2", "pool", str(torch.relu)]


def test_average_pooling_stays_after_the_relu() -> None:
    # relu(avg(h)) ≠ avg(relu(h)): only max-pooling commutes with the ReLU
    module = nn.Sequential(
        nn.Conv2d(1, 2, 3), nn.ReLU(), nn.AvgPool2d(2), nn.Flatten(), nn.Linear(18, 10)
    )
    model = FlatModel(module, "classification")
    stacked = stack(model, (1, 8, 8))
    assert stacked is not None
    gen = torch.Generator().manual_seed(0)
    theta = model.initial() + 0.1 * torch.randn(2, model.dim, generator=gen)
    x, y = torch.randn(2, 3, 1, 8, 8, generator=gen), torch.randint(0, 10, (2, 3), generator=gen)

    order = [str(n.target) for n in stacked.graph.nodes if n.op == "call_module"]
    _, losses = stacked.grad_and_loss(theta, x, y, out=torch.empty_like(theta))

    assert order == ["0", "1", "2", "3", "4"]
    assert_close(losses, torch.stack([model.loss(theta[i], x[i], y[i]) for i in range(2)]))


def test_stacked_gradients_are_each_clients_own() -> None:
    model = zoo_model("cnn")
    gen = torch.Generator().manual_seed(0)
    theta = model.initial() + 0.05 * torch.randn(3, model.dim, generator=gen)  # 3 clients
    x = torch.randn(3, 4, 1, 8, 8, generator=gen)
    y = torch.randint(0, 10, (3, 4), generator=gen)
    stacked = stack(model, (1, 8, 8))
    assert stacked is not None

    grads, losses = stacked.grad_and_loss(theta, x, y, out=torch.empty_like(theta))

    for i in range(3):
        th = theta[i].clone().requires_grad_()
        loss = model.loss(th, x[i], y[i])
        (g,) = torch.autograd.grad(loss, th)
        assert_close(losses[i], loss.detach())
        assert_close(grads[i], g, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize(
    ("module", "shape"),
    [
        (zoo_model("linear").module, (1, 8, 8)),  # images, flattened by the model
        (nn.Sequential(nn.Flatten(), nn.Linear(64, 10, bias=False)), (1, 8, 8)),
        (zoo_model("linear", (20,)).module, (20,)),  # feature vectors
    ],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_softmax_regression_takes_its_closed_form_with_autograds_values(
    module: nn.Module, shape: tuple[int, ...], weighted: bool
) -> None:
    model = FlatModel(module, "classification")
    stacked = stack(model, shape)
    assert stacked is not None and stacked.softmax_regression is not None
    gen = torch.Generator().manual_seed(1)
    theta = model.initial() + 0.1 * torch.randn(3, model.dim, generator=gen)
    x, y = torch.randn(3, 5, *shape, generator=gen), torch.randint(0, 10, (3, 5), generator=gen)
    weights = torch.tensor([[1.0] * 5, [1.0] * 3 + [0.0] * 2, [1.0] + [0.0] * 4])

    grads, losses = stacked.grad_and_loss(
        theta, x, y, weights if weighted else None, out=torch.empty_like(theta)
    )

    for i in range(3):
        th = theta[i].clone().requires_grad_()
        if weighted:
            loss = model.weighted_loss(th, x[i], y[i], weights[i])
        else:
            loss = model.loss(th, x[i], y[i])
        (g,) = torch.autograd.grad(loss, th)
        assert_close(losses[i], loss.detach())
        assert_close(grads[i], g, atol=1e-6, rtol=1e-5)


def test_only_one_linear_layer_under_cross_entropy_is_softmax_regression() -> None:
    cfg = build_config({"model": {"name": "logistic"}})  # synthetic_clustered: 2 classes
    binary = FlatModel(build_model(cfg.model, (20,), 2), "binary")
    mlp = zoo_model("mlp")

    for model, shape in ((binary, (20,)), (mlp, (1, 8, 8))):
        stacked = stack(model, shape)
        assert stacked is not None and stacked.softmax_regression is None


def assert_backends_agree(model: FlatModel, clients: int, steps: int, batch: int) -> None:
    """vmap's deltas and losses are sequential's, on 8×8 images."""
    gen = torch.Generator().manual_seed(0)
    n = 6 * clients
    x, y = torch.randn(n, 1, 8, 8, generator=gen), torch.randint(0, 10, (n,), generator=gen)
    batches = torch.randint(0, n, (clients, steps, batch), generator=gen)
    spec = LocalSpec(w=model.initial(), batches=batches, mask=torch.ones(clients, steps), lr=0.1)

    d_vmap, l_vmap = train_vmap(model, x, y, spec)
    d_seq, l_seq = train_sequential(model, x, y, spec)

    assert_close(d_vmap, d_seq, atol=1e-6, rtol=1e-5)
    assert_close(l_vmap, l_seq)


def test_vmap_backend_falls_back_to_torch_func_vmap_and_agrees() -> None:
    module = nn.Sequential(nn.Flatten(), nn.Linear(64, 8), nn.Tanh(), nn.Linear(8, 10))
    model = FlatModel(module, "classification")

    assert model.stacked((1, 8, 8)) is None
    assert_backends_agree(model, clients=3, steps=4, batch=5)


PROBE = """
import resource, sys
import torch
from worker.engine.allocator import keep_freed_memory
if sys.argv[1] == "keep":
    assert keep_freed_memory()
def step():
    blocks = [torch.ones(5_000_000) for _ in range(4)]  # 4 x 20 MB, freed together
    del blocks
# A heap that has run a while holds freed small chunks, so a tensor's small objects do
# not land between the large blocks (which then could not merge when freed): without
# this the outcome depends on what the process happened to import before.
small = [torch.ones(1) for _ in range(1000)]
del small
step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
step()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc allocator tuning")
def test_kept_freed_memory_is_reused_without_page_faults() -> None:
    def faults(mode: str) -> int:
        out = subprocess.run(
            [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True
        )
        return int(out.stdout)

    plain, kept = faults("plain"), faults("keep")

    # by default the 80 MB freed at the end of a step goes back to the system and the
    # next step faults it in again, page by page (4 KB: ~19 500 faults)
    assert plain > 15_000
    assert kept < plain / 2


def test_a_tile_keeps_the_largest_activation_within_the_budget() -> None:
    # the CNN's largest activation on 3×32×32 is conv1's 6×28×28 floats: 18 816 bytes a
    # sample; 2.5 MB hold 2 621 440 // (32 · 18 816) = 4 clients of batch 32
    stacked = stack(zoo_model("cnn", (3, 32, 32)), (3, 32, 32))
    assert stacked is not None

    assert stacked.sample_bytes == 6 * 28 * 28 * 4
    assert stacked.tile(100, 32) == 4
    assert stacked.tile(100, 5) == 27
    assert stacked.tile(3, 32) == 3  # never more clients than there are
    assert stacked.tile(100, 10_000) == 1  # never fewer than one


@pytest.mark.parametrize("budget", [1, 12_288])  # tiles of 1 client, and of 2
def test_training_in_tiles_gives_each_clients_own_update(
    budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = zoo_model("cnn")
    stacked = model.stacked((1, 8, 8))
    assert stacked is not None
    monkeypatch.setattr("worker.engine.training.stacked.TILE_BYTES", budget)

    assert stacked.tile(5, 4) < 5  # 1536 bytes a sample, batch 4
    assert_backends_agree(model, clients=5, steps=3, batch=4)


@pytest.mark.parametrize("packed", [False, True])
def test_class_logits_are_w_x_plus_b_by_hand_laid_out_class_major(packed: bool) -> None:
    linear = nn.Linear(2, 2)
    with torch.no_grad():
        linear.weight.copy_(torch.tensor([[1.0, 2.0], [-1.0, 0.5]]))
        linear.bias.copy_(torch.tensor([0.5, -1.0]))
    model = FlatModel(nn.Sequential(nn.Flatten(), linear), "classification")
    stacked = stack(model, (2,))
    assert stacked is not None and stacked.one_linear
    x = torch.tensor([[1.0, 1.0], [2.0, -2.0], [0.0, 0.0]])
    rows = stacked.packed(x) if packed else None
    assert (rows is not None) == packed

    theta = model.initial()
    logits = (
        stacked.class_logits(theta, x) if rows is None else stacked.packed_class_logits(theta, rows)
    )

    # (1·1 + 2·1 + 0.5, −1·1 + 0.5·1 − 1), (1·2 − 2·2 + 0.5, −1·2 − 0.5·2 − 1), (b)
    assert_close(logits, torch.tensor([[3.5, -1.5], [-1.5, -4.0], [0.5, -1.0]]))
    assert logits.t().is_contiguous()  # (classes, rows) in memory, either way


def test_only_a_softmax_regression_on_float_rows_is_packed() -> None:
    x = torch.randn(6, 1, 8, 8, generator=torch.Generator().manual_seed(0))
    cnn = stack(zoo_model("cnn"), (1, 8, 8))
    linear = stack(zoo_model("linear"), (1, 8, 8))
    assert cnn is not None and linear is not None

    assert cnn.packed(x) is None
    assert linear.packed(x.double()) is None  # oneDNN's layout is float32's
    assert linear.packed(x) is not None


def test_a_softmax_regressions_tile_streams_its_inputs() -> None:
    # its only activation is the gathered inputs, 3·32·32 floats = 12 288 bytes a
    # sample: 16 MB hold 16 777 216 // (10 · 12 288) = 136 clients of batch 10, where
    # the CNN's 2.5 MB budget would hold 21
    stacked = stack(zoo_model("linear", (3, 32, 32)), (3, 32, 32))
    assert stacked is not None and stacked.one_linear

    assert stacked.sample_bytes == 3 * 32 * 32 * 4
    assert stacked.tile_bytes == 16 << 20
    assert stacked.tile(100, 10) == 100
    assert stacked.tile(1000, 10) == 136


@pytest.mark.parametrize("name", ["linear", "cnn"])
def test_only_a_softmax_regression_has_class_logits_equal_to_its_forward(name: str) -> None:
    model = zoo_model(name)
    stacked = stack(model, (1, 8, 8))
    assert stacked is not None
    theta = model.initial()
    x = torch.randn(5, 1, 8, 8, generator=torch.Generator().manual_seed(0))

    if name == "cnn":
        assert not stacked.one_linear
        with pytest.raises(AssertionError, match="not a softmax regression"):
            stacked.class_logits(theta, x)
        return
    assert stacked.one_linear
    assert_close(stacked.class_logits(theta, x), model.forward(theta, x), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize(
    ("steps", "momentum", "start", "delta", "kept"),
    [
        (1, 0.0, None, -0.2, None),  # θ = 1, g = 2θ = 2: Δ = −0.1·2
        (2, 0.0, None, -0.36, None),  # then θ = 0.8, g = 1.6: θ = 0.64
        (1, 0.5, 1.0, -0.25, 2.5),  # b = 0.5·1 + 2 = 2.5
        (2, 0.5, 0.0, -0.46, 2.6),  # b = 2, θ = 0.8; b = 0.5·2 + 1.6 = 2.6, θ = 0.54
    ],
)
def test_vmap_deltas_by_hand_leave_w_and_keep_the_buffers(
    steps: int, momentum: float, start: float | None, delta: float, kept: float | None
) -> None:
    model = FlatModel(nn.Linear(1, 1, bias=False), "regression")  # loss (θx − y)²
    w = torch.tensor([1.0])
    x, y = torch.ones(1, 1), torch.zeros(1, 1)  # one row: ∇ = 2θ
    buf = None if start is None else torch.full((2, 1), start)
    spec = LocalSpec(
        w=w,
        batches=torch.zeros(2, steps, 1, dtype=torch.long),
        mask=torch.ones(2, steps),
        lr=0.1,
        momentum=momentum,
        buf=buf,
    )

    deltas, _ = train_vmap(model, x, y, spec)

    assert_close(deltas, torch.full((2, 1), delta))
    assert_close(w, torch.tensor([1.0]))  # every client started from it; none wrote it
    if buf is not None and kept is not None:
        assert_close(buf, torch.full((2, 1), kept))  # the last step's buffers, not deltas


def two_class_regression() -> FlatModel:
    """A softmax regression on 2 features, 2 classes, W = 0 and b = 0: p = (½, ½)."""
    module = nn.Sequential(nn.Flatten(), nn.Linear(2, 2))
    with torch.no_grad():
        for p in module.parameters():
            p.zero_()
    return FlatModel(module, "classification")


# rows (1, 2) of class 0 and (3, −1) of class 1; client 0 takes both, client 1 the second
# twice. With p = (½, ½) the residuals p − e_y are (−½, ½) and (½, −½), and ∇W = ½ Σ_j
# r_j x_jᵀ, ∇b = ½ Σ_j r_j, in the flat order W₀₀ W₀₁ W₁₀ W₁₁ b₀ b₁:
ROWS_X = torch.tensor([[1.0, 2.0], [3.0, -1.0]])
ROWS_Y = torch.tensor([0, 1])
BATCHES = torch.tensor([[[0, 1]], [[1, 1]]])
GRADS = torch.tensor(
    [
        [0.5, -0.75, -0.5, 0.75, 0.0, 0.0],  # ½(−½·(1, 2) + ½·(3, −1)) = (½, −¾)
        [1.5, -0.5, -1.5, 0.5, 0.5, -0.5],  # ½(2 · ½·(3, −1))
    ]
)


@pytest.mark.parametrize("shared", [True, False])
def test_softmax_regression_gradients_by_hand_shared_or_not(shared: bool) -> None:
    # a stride-0 θ (one w for both clients) takes one product for all rows; a θ of its
    # own per client the batched one: both give the gradients by hand, times the scale
    model = two_class_regression()
    stacked = model.stacked((2,))
    assert stacked is not None and stacked.one_linear
    theta = model.initial().expand(2, -1)
    if not shared:
        theta = theta.clone()
    assert (theta.stride(0) == 0) == shared
    x, y = ROWS_X[BATCHES[:, 0]], ROWS_Y[BATCHES[:, 0]]

    grads, losses = stacked.grad_and_loss(theta, x, y, out=torch.empty(2, 6), scale=-0.1)

    assert_close(grads, -0.1 * GRADS)
    assert_close(losses, torch.full((2,), math.log(2)))


@pytest.mark.parametrize("correction", [None, 1.0])
def test_one_plain_step_makes_its_deltas_in_the_gradients_product(
    correction: float | None,
) -> None:
    # Δ = −η(∇ + c): with no correction the step's product writes −η∇ itself; with one
    # the step runs the general update; both by hand
    model = two_class_regression()
    spec = LocalSpec(
        w=model.initial(),
        batches=BATCHES,
        mask=torch.ones(2, 1),
        lr=0.1,
        correction=None if correction is None else torch.full((2, 6), correction),
    )

    deltas, losses = train_vmap(model, ROWS_X, ROWS_Y, spec)

    assert_close(deltas, -0.1 * (GRADS + (correction or 0.0)))
    assert_close(losses, torch.full((2,), math.log(2)))
    assert_close(model.initial(), torch.zeros(6))  # w is left as it was


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])  # oneDNN's, BLAS's
@pytest.mark.parametrize("with_bias", [True, False])
def test_row_logits_are_x_w_plus_b_by_hand(dtype: torch.dtype, with_bias: bool) -> None:
    weight = torch.tensor([[1.0, 2.0], [-1.0, 0.5]], dtype=dtype)
    bias = torch.tensor([0.5, -1.0], dtype=dtype)
    x = torch.tensor([[1.0, 1.0], [2.0, -2.0], [0.0, 0.0]], dtype=dtype)
    # (1 + 2, −1 + 0.5), (2 − 4, −2 − 1), (0, 0), then + b
    expected = torch.tensor([[3.0, -0.5], [-2.0, -3.0], [0.0, 0.0]], dtype=dtype)

    logits = row_logits(weight, x, bias if with_bias else None)

    assert_close(logits, expected + bias if with_bias else expected)


def test_a_stacked_linear_layer_by_hand_gives_its_weight_gradient_in_the_weights_layout() -> None:
    # Two clients, one row each, 2 inputs → 2 outputs: y_k = W_k h_k + b_k.
    weight = torch.tensor(
        [[[1.0, 2.0], [0.0, 1.0]], [[3.0, -1.0], [1.0, 1.0]]], requires_grad=True
    )  # (K, O, I)
    bias = torch.tensor([[0.5, 0.0], [-2.0, 1.0]], requires_grad=True)
    h = torch.tensor([[[1.0, 1.0]], [[2.0, 4.0]]])  # (K, B, I)

    out = _linear(h, {"fc.weight": weight, "fc.bias": bias}, "fc")
    (grad_w,) = torch.autograd.grad(out.sum(), [weight])

    assert out.tolist() == [[[3.5, 1.0]], [[0.0, 7.0]]]  # 1+2+0.5, 0+1+0; 6−4−2, 2+4+1
    assert grad_w.tolist() == [[[1.0, 1.0]] * 2, [[2.0, 4.0]] * 2]  # ∂Σy/∂W_k = 1 h_kᵀ
    assert grad_w.is_contiguous()  # copied into the (K, d) gradient as it lies
