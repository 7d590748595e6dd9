"""Global-model evaluation: test loss/accuracy overall and per client test split."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import cast

import torch
from torch import Tensor, nn

from worker.engine.data.federated import inputs
from worker.engine.training import objective
from worker.engine.training.flat import FlatModel
from worker.engine.training.stacked import TILE_BYTES

EVAL_GROUPS = 8
DEVICE_EVAL_BYTES = 256 << 20  # an accelerator's activations of one evaluation batch
PACK_BYTES = 256 << 20  # the most that `pack` copies


def row_bytes(module: nn.Module, sample_shape: tuple[int, ...]) -> int:
    """Bytes of the largest output of the module's layers for one row: one zero row
    through it, where its parameters are (the meta device of `models.profile` does no
    arithmetic; a pass there from a run's process would load torch's meta kernels,
    ≈ 100 MB)."""
    largest = 0

    def hook(_: nn.Module, __: object, out: object) -> None:
        nonlocal largest
        if isinstance(out, Tensor):
            largest = max(largest, out.numel() * out.element_size())

    param = next(module.parameters(), torch.zeros(()))
    row = torch.zeros(1, *sample_shape, dtype=param.dtype, device=param.device)
    handles = [m.register_forward_hook(hook) for m in module.modules()]
    was_training = module.training
    module.eval()  # batch norm: statistics of one row
    try:
        with torch.no_grad():
            module(row)
    finally:
        module.train(was_training)
        for handle in handles:
            handle.remove()
    return largest


def evaluation_rows(explicit: int | None, activation_bytes: int, on_cpu: bool) -> int:
    """Rows per forward pass of an evaluation: `eval.batch_size` where the config sets
    it, else as many as keep the largest output of a layer (`activation_bytes` for one
    row, `row_bytes`) within a core's cache on a CPU (`TILE_BYTES`, as training's tiles) and
    within `DEVICE_EVAL_BYTES` on an accelerator. The CNN's first convolution makes
    18.8 kB a row: 139 rows; a logistic model on 10 features 8 bytes: 327 680 rows."""
    if explicit is not None:
        return explicit
    budget = TILE_BYTES if on_cpu else DEVICE_EVAL_BYTES
    return max(EVAL_GROUPS, budget // max(1, activation_bytes))


@dataclass
class Evaluation:
    loss: float
    acc: float | None
    correct: Tensor | None  # (n_test,) 1.0 where the prediction is right


def pack(model: FlatModel, x: Tensor, batch: int, values: Tensor | None) -> list[Tensor] | None:
    """Samples x that every evaluation reads again (the test set), each batch of
    `batch` rows packed once for a softmax regression's product
    (`StackedModel.packed`): a second copy of x, made only for samples held as floats
    (bytes, held with a byte table `values`, would cost 4× as much as floats) within
    `PACK_BYTES`. None where nothing is packed: `evaluate` then reads x itself."""
    stacked = model.stacked(tuple(x.shape[1:]))
    if stacked is None or values is not None or x.numel() * x.element_size() > PACK_BYTES:
        return None
    chunks = [stacked.packed(x[lo : lo + batch]) for lo in range(0, len(x), batch)]
    return None if any(c is None for c in chunks) else cast(list[Tensor], chunks)


@torch.no_grad()
def evaluate(
    model: FlatModel,
    theta: Tensor,
    x: Tensor,
    y: Tensor,
    batch: int,
    values: Tensor | None = None,
    packed: list[Tensor] | None = None,
) -> Evaluation:
    """In batches of `batch` rows (`evaluation_rows`), each turned into the model's inputs
    with the samples' byte table `values` (`inputs`), through the model's stacked form
    where it has one, or from the batches `pack` made of x. Results are written into
    tensors allocated once: small tensors kept per batch sit between the batches' freed
    activations and fragment the heap (evaluating an MLP of 2000 hidden units on
    750 000 samples peaked at 10 GB that way)."""
    was_training = model.module.training
    model.module.eval()
    forward, batch = _forward(model, theta, tuple(x.shape[1:]), batch)
    starts = range(0, len(y), batch)
    losses = torch.empty(len(starts), device=x.device)
    correct = None if model.objective == "regression" else torch.empty(len(y), device=x.device)
    stacked = model.stacked(tuple(x.shape[1:]))
    assert packed is None or len(packed) == len(starts), "evaluate: packed at another batch"
    for i, lo in enumerate(starts):
        if packed is not None and stacked is not None:
            out = stacked.packed_class_logits(theta, packed[i])
        else:
            out = forward(inputs(x[lo : lo + batch], values))
        yb = y[lo : lo + batch]
        losses[i] = objective.loss(model.objective, out, yb, "sum")
        if correct is not None:
            correct[lo : lo + batch] = objective.correct(model.objective, out, yb)
    model.module.train(was_training)
    loss = float(losses.sum()) / len(y)
    if correct is None:
        return Evaluation(loss, None, None)
    return Evaluation(loss, float(correct.mean()), correct)


def _forward(
    model: FlatModel, theta: Tensor, sample_shape: tuple[int, ...], batch: int
) -> tuple[Callable[[Tensor], Tensor], int]:
    """θ's forward pass on a batch of inputs, and the batch size to run it at. The
    stacked form runs the batch as `EVAL_GROUPS` copies of the model, each on its share
    of the rows: channels-last pooling is vectorised over channels, and one copy's 6
    channels (the CNN's first layer) leave most of each vector empty (max-pooling its
    6×28×28 outputs of 133 images: 1.19 ms; 24 channels of 32 images: 0.16 ms)."""
    stacked = model.stacked(sample_shape)
    if stacked is None:
        return partial(model.forward, theta), batch
    if stacked.one_linear:
        return partial(stacked.class_logits, theta), batch  # one product, no copies
    params = model.unflatten(theta.expand(EVAL_GROUPS, -1))
    batch = max(EVAL_GROUPS, batch - batch % EVAL_GROUPS)

    def forward(xb: Tensor) -> Tensor:
        n = len(xb)
        if pad := -n % EVAL_GROUPS:  # the last batch, padded with zero rows
            xb = torch.cat([xb, xb.new_zeros(pad, *xb.shape[1:])])
        out = stacked.outputs(params, xb.view(EVAL_GROUPS, -1, *xb.shape[1:]))
        return out.reshape(n + pad, -1)[:n]

    return forward, batch


def per_client_accuracy(correct: Tensor, test_offsets: Tensor) -> Tensor:
    """Accuracy on each client's test split (NaN for a client with no test rows)."""
    n_owned = int(test_offsets[-1])
    counts = test_offsets.diff().to(correct.device)
    owner = torch.repeat_interleave(torch.arange(len(counts), device=correct.device), counts)
    sums = torch.zeros(len(counts), device=correct.device).index_add_(0, owner, correct[:n_owned])
    return (sums / counts.clamp(min=1)).masked_fill(counts == 0, float("nan")).cpu()
