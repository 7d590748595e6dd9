"""Local training of the selected clients: `vmap` (all at once) and `sequential` backends.

Both run the same update per step, on the same batches:
    g = ∇f_i(θ; batch) + wd·θ + μ(θ − w) + c_i,   b = m·b + g,   θ ← θ − η_l·b
where c_i is an optional per-client gradient correction (SCAFFOLD), μ the proximal
weight (FedProx), and b starts at 0 or at the client's kept buffer (`LocalSpec.buf`).
f_i(θ; batch) is the mean loss over the batch's real rows: an epoch's last batch may
hold fewer than B (`batches.py`); vmap weighs its padding rows 0, sequential leaves
them out (so batch norm never sees them). The sequential backend also trains models
with buffers (batch norm): each client starts from the global buffers, and the global
buffers become their mean over the round's clients. Both return the deltas θ_i − w as
a (K, d) tensor and each client's mean training loss (the mean over its steps of each
step's f_i); with `LocalSpec.combine` c, the sum Σ_i c_i Δ_i (d,) in place of the
deltas, which they then never hold at once: the sequential backend adds each client's
delta to it as the client finishes (at K = 100 clients of LEAF's FEMNIST CNN, 26 MB
where the deltas took 2.6 GB), and vmap's single plain step adds each tile's weighted
gradients to it (`StackedModel.grad_and_loss`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import torch
from torch import Tensor
from torch.func import grad_and_value, vmap

from worker.engine.data.federated import inputs
from worker.engine.training.batches import row_weights
from worker.engine.training.flat import FlatModel
from worker.engine.training.stacked import clients_at_once


@dataclass
class LocalSpec:
    w: Tensor  # (d,) global parameters every client starts from, or (K, d) one each
    batches: Tensor  # (K, S, B) row indices into x/y
    mask: Tensor  # (K, S) 1 where the client takes that step
    lr: float
    real: Tensor | None = None  # (K, S) real rows of each batch, the first (None: all)
    momentum: float = 0.0
    buf: Tensor | None = None  # (K, d) momentum buffers to start from (None: zeros), with
    # momentum overwritten by each client's buffer after its last step
    weight_decay: float = 0.0
    prox_mu: float = 0.0
    correction: Tensor | None = None  # (K, d)
    x_values: Tensor | None = None  # what x's bytes stand for (`FederatedData.x_values`)
    combine: Tensor | None = None  # (K,) c: return Σ_i c_i Δ_i (d,) in place of the deltas


def _direction(spec: LocalSpec, theta: Tensor, w: Tensor, g: Tensor, corr: Tensor | None) -> Tensor:
    """The step direction from the starting point w, built in place in the fresh
    gradient `g`."""
    if spec.weight_decay:
        g.add_(theta, alpha=spec.weight_decay)
    if spec.prox_mu:
        g.add_(theta - w, alpha=spec.prox_mu)
    if corr is not None:
        g.add_(corr)
    return g


def train_vmap(model: FlatModel, x: Tensor, y: Tensor, spec: LocalSpec) -> tuple[Tensor, Tensor]:
    """All K clients at once: through the model's stacked form where it has one, else
    `torch.func.vmap`. On a CPU the stacked form trains a tile of clients
    (`StackedModel.tile`) through all its steps, then the next tile, so that a tile's
    state stays in cache and no (K, d) state is held (FedAvg's round of 100 LEAF
    FEMNIST clients, 2 steps: a training peak of 5.2 GB before, 2.8 GB writing the
    deltas, 0.33 GB trained into their sum; `bench/summed.py --backend vmap`). The state
    is updated in place: on a CPU a fresh result per operation costs more in page
    faults than the arithmetic. A step that every client takes (most of them) skips
    the mask's multiplications, which leave such a step's values as they are.

    Every client starts from one w: the first step reads it as a (K, d) view of w, and
    its update writes the first (K, d) state; the last step writes the deltas straight
    (θ − w − η·b). With one step the state is never made: W2's round (softmax
    regression, K = 100, one step) passes over its (K, d) 12 MB twice (the gradients,
    their scaling into deltas) instead of four times (a clone of w, the gradients, the
    update, the subtraction of w): 3.4 → 0.6 ms of its local training's own time. A
    single plain step (no momentum, weight decay, proximal term or correction) that
    every client takes has the deltas −η·∇ made by the gradient's own product, scaled
    as it is written (`StackedModel.grad_and_loss`): one pass, not two; with
    `combine` that product makes their sum Σ_i c_i Δ_i (d,), and no (K, d) tensor is
    written at all (W2's round: the per-client products wrote 12 MB). Several steps
    keep each client's state, (K, d) anyway: their deltas are then summed."""
    k, steps, batch = spec.batches.shape
    theta = spec.w.expand(k, -1) if spec.w.dim() == 1 else spec.w
    mask = spec.mask.to(theta.device)
    everyone = mask.all(dim=0).tolist()
    single = steps == 1 and everyone[0] and _plain(spec)
    # (S, K, B): a step's rows, and their weights, in one block
    batches = spec.batches.transpose(0, 1).contiguous()
    weights = None
    if spec.real is not None:
        weights = row_weights(spec.real, batch).to(theta.device).transpose(0, 1).contiguous()
    if single:  # with `combine`, the step's product makes the sum itself
        step_fn = _grad_and_loss(model, x, y, theta, batch, spec.x_values, spec.combine)
        deltas, loss = step_fn(theta, batches[0], None if weights is None else weights[0], -spec.lr)
        return deltas, loss / mask.sum(dim=1)
    tile = clients_at_once(model.stacked(tuple(x.shape[1:])), theta.device.type, k, batch)
    if tile >= k:  # all at once: `torch.func.vmap`, an accelerator, or K within a tile
        step_fn = _grad_and_loss(model, x, y, theta, batch, spec.x_values)
        deltas, losses = _train_steps(spec, theta, step_fn, batches, weights, mask, everyone)
        return (deltas if spec.combine is None else spec.combine @ deltas), losses
    # a tile of clients through all its steps, then the next: its state stays in cache
    out = theta.new_empty(k if spec.combine is None else 0, theta.shape[1])
    total = theta.new_zeros(theta.shape[1] if spec.combine is not None else 0)
    losses = theta.new_empty(k)
    for lo in range(0, k, tile):
        part = slice(lo, lo + tile)
        sub, part_theta, part_mask = _part(spec, part), theta[part], mask[part]
        fn = _grad_and_loss(model, x, y, part_theta, batch, spec.x_values)
        part_weights = None if weights is None else weights[:, part]
        part_deltas, losses[part] = _train_steps(
            sub, part_theta, fn, batches[:, part], part_weights, part_mask,
            part_mask.all(dim=0).tolist(),
        )  # fmt: skip
        if spec.combine is None:
            out[part] = part_deltas
        else:
            total.addmv_(part_deltas.t(), spec.combine[part])
    return (out if spec.combine is None else total), losses


def _part(spec: LocalSpec, part: slice) -> LocalSpec:
    """The clients `part` of `spec` (views: their momentum buffers are written back)."""

    def rows(t: Tensor | None) -> Tensor | None:
        return None if t is None else t[part]

    return replace(
        spec,
        w=spec.w if spec.w.dim() == 1 else spec.w[part],
        batches=spec.batches[part],
        mask=spec.mask[part],
        real=rows(spec.real),
        buf=rows(spec.buf),
        correction=rows(spec.correction),
        combine=None,
    )


def _train_steps(
    spec: LocalSpec,
    theta: Tensor,
    step_fn: StepFn,
    batches: Tensor,
    weights: Tensor | None,
    mask: Tensor,
    everyone: list[bool],
) -> tuple[Tensor, Tensor]:
    """`train_vmap`'s steps one by one: the deltas (K, d) and mean losses (K,)."""
    k, steps = mask.shape
    shared = True  # theta is still spec.w (a view of it): written out of place
    buf = theta
    if spec.momentum:
        buf = torch.zeros_like(theta) if spec.buf is None else spec.buf
    loss_sum = torch.zeros(k, device=theta.device)
    for s in range(steps):
        g, loss = step_fn(theta, batches[s], None if weights is None else weights[s], 1.0)
        g = _direction(spec, theta, spec.w, g, spec.correction)
        m = None if everyone[s] else mask[:, s, None]
        if m is None:
            buf = buf.mul_(spec.momentum).add_(g) if spec.momentum else g
            loss_sum += loss
        else:
            if spec.momentum:  # buf ← m·b + g where the client steps; unchanged elsewhere
                buf = buf.mul_(torch.where(m > 0, spec.momentum, 1.0)).addcmul_(m, g)
            else:
                buf = g
            loss_sum += loss * mask[:, s]
        step = buf if m is None else buf * m
        if s == steps - 1:  # the deltas θ − w − η·b, without the last state
            if shared:
                out = step if step is not buf or not spec.momentum else step.clone()
                return out.mul_(-spec.lr), loss_sum / mask.sum(dim=1)
            return theta.sub_(spec.w).sub_(step, alpha=spec.lr), loss_sum / mask.sum(dim=1)
        if shared:
            theta, shared = torch.sub(theta, step, alpha=spec.lr), False
        else:
            theta.sub_(step, alpha=spec.lr)
    return torch.zeros_like(spec.w.expand(k, -1)), loss_sum / mask.sum(dim=1)


def _plain(spec: LocalSpec) -> bool:
    """Whether a step's direction is the gradient alone: b = g, θ ← θ − η·g."""
    terms = spec.momentum or spec.weight_decay or spec.prox_mu
    return not terms and spec.correction is None


StepFn = Callable[[Tensor, Tensor, Tensor | None, float], tuple[Tensor, Tensor]]


def _grad_and_loss(
    model: FlatModel,
    x: Tensor,
    y: Tensor,
    theta: Tensor,
    batch: int,
    x_values: Tensor | None,
    combine: Tensor | None = None,
) -> StepFn:
    """(θ (K, d), batch rows (K, B), row weights (K, B) or None, scale) → per-client
    gradients times the scale, and losses: the model's stacked form where it has one,
    in tiles of clients on a CPU (`StackedModel.tile`), else `torch.func.vmap` of its
    (weighted) loss; each batch's samples turned into the model's inputs as gathered
    (`inputs`, with the samples' byte table `x_values`). With `combine` c (K,), the gradients'
    sum Σ_i c_i·scale·∇_i (d,) in their place, made a tile at a time."""
    k, d = theta.shape
    stacked = model.stacked(tuple(x.shape[1:]))
    if stacked is None:
        plain = vmap(grad_and_value(model.loss))
        weighted = vmap(grad_and_value(model.weighted_loss))

        def batched(
            theta: Tensor, rows: Tensor, weights: Tensor | None, scale: float
        ) -> tuple[Tensor, Tensor]:
            xb = inputs(x[rows], x_values)
            if weights is None:
                g, loss = plain(theta, xb, y[rows])
            else:
                g, loss = weighted(theta, xb, y[rows], weights)
            if combine is not None:
                return torch.mv(g.t(), combine).mul_(scale), loss
            return (g if scale == 1.0 else g.mul_(scale)), loss

        return batched
    tile = clients_at_once(stacked, theta.device.type, k, batch)
    # the gradients, or with `combine` a tile's scratch and the sum
    out = torch.empty_like(theta) if combine is None else theta.new_empty(min(tile, k), d)
    total = None if combine is None else theta.new_empty(d)
    losses = torch.empty(k, device=theta.device)

    def tiled(
        theta: Tensor, rows: Tensor, weights: Tensor | None, scale: float
    ) -> tuple[Tensor, Tensor]:
        if total is not None:
            total.zero_()
        for lo in range(0, k, tile):
            part = slice(lo, lo + tile)
            tile_weights = None if weights is None else weights[part]
            tile_rows = rows[part]
            xs, ys = inputs(gather(x, tile_rows), x_values), gather(y, tile_rows)
            if combine is None:
                _, losses[part] = stacked.grad_and_loss(
                    theta[part], xs, ys, tile_weights, out=out[part], scale=scale
                )
            else:
                _, losses[part] = stacked.grad_and_loss(
                    theta[part], xs, ys, tile_weights, out=out[: len(tile_rows)], scale=scale,
                    combine=combine[part], into=total,
                )  # fmt: skip
        return (out if total is None else total), losses

    return tiled


def gather(t: Tensor, rows: Tensor) -> Tensor:
    """`t[rows]` for a (K, B) index: by `index_select`, which copies whole rows (a
    client's batch of 64 MNIST images, 12 clients: 0.09 ms on a CPU core, where advanced
    indexing takes 0.41 ms)."""
    return t.index_select(0, rows.reshape(-1)).reshape(*rows.shape, *t.shape[1:])


def train_sequential(
    model: FlatModel, x: Tensor, y: Tensor, spec: LocalSpec
) -> tuple[Tensor, Tensor]:
    k, steps = spec.mask.shape
    d = spec.w.shape[-1]
    # the deltas, or with `combine` their sum, each client's added as it finishes
    deltas = torch.empty(k if spec.combine is None else 0, d, device=spec.w.device)
    summed = torch.zeros(d if spec.combine is not None else 0, device=spec.w.device)
    losses = torch.empty(k, device=spec.w.device)
    start, finals = _buffers(model), []
    for i in range(k):
        _load_buffers(model, start)
        corr = None if spec.correction is None else spec.correction[i]
        w = spec.w if spec.w.dim() == 1 else spec.w[i]
        theta = w.clone()
        buf = torch.zeros_like(theta) if spec.buf is None else spec.buf[i].clone()
        total = torch.zeros((), device=spec.w.device)
        for s in range(steps):
            if spec.mask[i, s] == 0:
                continue
            rows = spec.batches[i, s]
            if spec.real is not None:
                rows = rows[: int(spec.real[i, s])]
            theta.requires_grad_(True)
            loss = model.loss(theta, inputs(x[rows], spec.x_values), y[rows])
            (g,) = torch.autograd.grad(loss, theta)
            theta = theta.detach()
            g = _direction(spec, theta, w, g, corr)
            buf = spec.momentum * buf + g if spec.momentum else g
            theta = theta - spec.lr * buf
            total += loss.detach()  # summed on the device: no sync per step
        if spec.combine is None:
            deltas[i] = theta - w
        else:
            summed.addcmul_(theta - w, spec.combine[i])
        if spec.buf is not None and spec.momentum:
            spec.buf[i] = buf
        losses[i] = total / spec.mask[i].sum().clamp(min=1)
        finals.append(_buffers(model))
    _load_buffers(model, _mean_buffers(finals) if finals else start)
    return (deltas if spec.combine is None else summed), losses


def _buffers(model: FlatModel) -> dict[str, Tensor]:
    return {n: b.detach().clone() for n, b in model.buffers.items()}


def _load_buffers(model: FlatModel, state: dict[str, Tensor]) -> None:
    for n, b in model.buffers.items():
        b.copy_(state[n])


def _mean_buffers(states: list[dict[str, Tensor]]) -> dict[str, Tensor]:
    """Buffers (batch-norm statistics) averaged over the clients, as FedAvg does."""
    return {
        n: torch.stack([s[n].double() for s in states]).mean(dim=0).to(states[0][n].dtype)
        for n in states[0]
    }


BACKENDS = {"vmap": train_vmap, "sequential": train_sequential}
