"""K clients' copies of a model, each with its own parameters, run as one model.

Convolutions become one grouped convolution (a group per client) on activations laid
out (B, K·C, H, W) in channels-last memory; linear layers become batched matrix
products on (K, B, F) features; pooling and ReLU act on the stacked activations as
they are. Since no client's loss depends on another's parameters, the gradient of the
summed losses holds each client's own gradient.

This is how the `vmap` backend trains the models it covers: `torch.func.vmap` batches
the same convolutions into the same grouped kernels, but in the default layout and with
a reshaping copy around every layer, which costs it about half its speed on a CPU.
Models with other layers (`stack` answers None) go through `torch.func.vmap`.

On a CPU the clients go through in tiles (`StackedModel.tile`): each tile's largest
activation stays near a core's share of cache, so every layer's output is read back
from cache by the next layer and by its own gradient, and no tensor is large enough for
the allocator to map it fresh (and fault it in) at every step. On the CNN of
`bench/roofline.py` (K = 100, batch 32, one thread) tiles of 4 clients take 0.78–0.83 s
a round where all 100 at once take 1.30 s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol, cast

import torch
from torch import Tensor, fx, nn
from torch.nn import functional as F

from worker.engine.training import objective


class FlatModel(Protocol):
    """What stacking reads of a model as one parameter vector (`flat.FlatModel`, which
    builds its stacked copies here)."""

    module: nn.Module
    objective: objective.Objective
    buffers: dict[str, Tensor]

    def unflatten(self, theta: Tensor) -> dict[str, Tensor]: ...


Layout = Literal["image", "features"]  # (B, K·C, H, W) channels-last | (K, B, F)
Kind = Literal["flatten", "relu", "conv", "linear", "max_pool", "avg_pool"]
Modules = dict[str, nn.Module]

_NEEDS: dict[Kind, Layout] = {
    "conv": "image", "max_pool": "image", "avg_pool": "image", "linear": "features"
}  # fmt: skip
_GIVES: dict[Kind, Layout] = {"flatten": "features", "conv": "image", "linear": "features"}
_RELU_FUNCTIONS: set[Callable[..., Any]] = {torch.relu, F.relu}
TILE_BYTES = 5 << 19  # 2.5 MB: about a core's L2 cache and its share of L3
STREAM_BYTES = 16 << 20  # a softmax regression's tile of inputs (`StackedModel.tile`)


def clients_at_once(stacked: StackedModel | None, device: str, clients: int, batch: int) -> int:
    """Clients the `vmap` backend trains together through all their local steps: a tile
    of the stacked form on a CPU (`StackedModel.tile`), else all of them (on an
    accelerator, or through `torch.func.vmap`: `stacked` None). `device`: the device's
    type. The run's estimate reads the same (`resources/memory.py`)."""
    return clients if stacked is None or device != "cpu" else stacked.tile(clients, batch)


class StackedModel:
    def __init__(
        self,
        flat: FlatModel,
        graph: fx.Graph,
        kinds: dict[fx.Node, Kind],
        modules: Modules,
        sample_bytes: int,
    ) -> None:
        self.flat = flat
        self.graph = graph
        self.kinds = kinds
        self.modules = modules
        self.sample_bytes = sample_bytes  # the largest activation of one sample
        self.flat_input = _flattened_first(graph, kinds)
        self.softmax_regression = (
            _single_linear(graph, kinds) if flat.objective == "classification" else None
        )

    def tile(self, clients: int, batch: int) -> int:
        """How many clients to run at once on a CPU: as many as keep the largest
        activation within its budget (`tile_bytes`), at least one (evaluation sizes its
        batches by `TILE_BYTES`: `evaluate.evaluation_rows`). With two threads the best tile
        measured the same as with one (`bench/roofline.py`'s round, K = 100, batch 32,
        2 threads: 0.49 s in tiles of 4 clients, 0.54 s of 17, 0.67 s of 69)."""
        fit = self.tile_bytes // max(1, batch * self.sample_bytes)
        return min(clients, max(1, fit))

    @property
    def tile_bytes(self) -> int:
        """A tile's budget: `TILE_BYTES`, or `STREAM_BYTES` for a softmax regression
        (`one_linear`), whose only activation is its gathered inputs. Its two products
        (the logits, ∇W) stream them whatever the tile, where a tile of the CNN reuses
        its activations from cache, so fewer tiles only save each tile's forty-odd
        operations; the budget bounds the gathered copy (W2's round, K = 100 of batch 10
        on a CPU core, 12 KB a sample: 9.4 ms in tiles of 20 clients, 8.9 of 34, 8.7 of
        100)."""
        return STREAM_BYTES if self.one_linear else TILE_BYTES

    def grad_and_loss(
        self,
        theta: Tensor,
        x: Tensor,
        y: Tensor,
        weights: Tensor | None = None,
        *,
        out: Tensor,
        scale: float = 1.0,
        combine: Tensor | None = None,
        into: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """Per-client gradients times `scale`, written into `out` (K, d), and losses
        (K,) at parameters θ (K, d), on each client's batch x (K, B, ...) with labels y
        (K, B) and row weights (K, B) where given (see `losses`). With `combine` c (K,)
        their sum Σ_i c_i·scale·∇_i is added to `into` (d,) instead (`out` then a
        scratch, which a softmax regression never writes)."""
        if self.one_linear:
            assert self.softmax_regression is not None
            name = self.softmax_regression
            if combine is not None:
                assert into is not None, "grad_and_loss: combine needs `into`"
                out = into
            return self._softmax_regression(name, theta, x, y, weights, out, scale, combine)
        leaves = {n: p.detach().requires_grad_() for n, p in self.flat.unflatten(theta).items()}
        losses = self.losses(leaves, x, y, weights)
        grads = torch.autograd.grad(losses.sum(), list(leaves.values()))
        for grad, slot in zip(grads, self.flat.unflatten(out).values(), strict=True):
            slot.copy_(grad)  # one copy each, whatever the gradient's memory layout
        if combine is not None:
            assert into is not None, "grad_and_loss: combine needs `into`"
            into.addmv_(out.t(), combine, alpha=scale)
        elif scale != 1.0:
            out.mul_(scale)
        return out, losses.detach()

    def _softmax_regression(
        self,
        name: str,
        theta: Tensor,
        x: Tensor,
        y: Tensor,
        weights: Tensor | None,
        out: Tensor,
        scale: float,
        combine: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """`grad_and_loss` of one linear layer under cross-entropy, in closed form: with
        p = softmax(W x + b) and row weights v normalised to sum to 1 (1/B without
        weights), ∇_W = Σ_j v_j (p_j − e_{y_j}) x_jᵀ and ∇_b = Σ_j v_j (p_j − e_{y_j}).
        The same values as autograd's to float rounding, in half its time: no graph, and
        the batch is read twice (forward, ∇_W) instead of through autograd's copies.
        The logits are laid out (K, classes, B), so that the softmax runs across the
        batch's rows (over a last axis of 10 classes it takes 10× as long) and ∇_W is
        one product written straight into `out`, `scale` folded into it (a local step
        that makes the deltas −η·∇ makes them here: no second pass over the (K, d)
        result).

        Where every client holds the same parameters (θ a stride-0 view of one w, as
        every client's first local step reads it), the logits of all K·B rows are one
        product X Wᵀ with the one W (`row_logits`), copied into the (K, classes, B)
        layout (K·B·C floats): a batched product with K copies of W read them K times
        (W2's round, tiles of 21 clients: 0.43 → 0.21 ms a tile on a CPU core).

        With `combine` c (K,), `out` is a sum (d,) to add Σ_i c_i·scale·∇_i to: the
        residuals weighted by c make it one product over all K·B rows, (C, K·B) by
        (K·B, F), which writes C·F floats where the per-client gradients wrote K·C·F."""
        k, b = y.shape
        h = x.reshape(k, b, -1)
        params = self.flat.unflatten(theta)
        weight, bias = params[f"{name}.weight"], params.get(f"{name}.bias")
        if theta.stride(0) == 0:  # one w for every client
            one = row_logits(weight[0], h.reshape(k * b, -1), None if bias is None else bias[0])
            logits = one.view(k, b, -1).transpose(1, 2).contiguous()  # K·B·C floats
        else:
            rows = h.transpose(1, 2)
            logits = (
                torch.bmm(weight, rows)
                if bias is None
                else torch.baddbmm(bias[..., None], weight, rows)
            )
        log_p = torch.log_softmax(logits, dim=1)
        labels = y.unsqueeze(1)
        nll = -log_p.gather(1, labels).squeeze(1)
        residual = log_p.exp_()
        residual.scatter_add_(1, labels, residual.new_full((k, 1, b), -1.0))
        if weights is None:
            loss, scale = nll.mean(dim=1), scale * (1.0 / b)
            if combine is not None:
                residual.mul_(combine[:, None, None])
        else:
            v = weights / weights.sum(1, True)
            residual.mul_((v if combine is None else v * combine[:, None]).unsqueeze(1))
            loss = (nll * v).sum(dim=1)
        slots = self.flat.unflatten(out)
        grad_w, grad_b = slots[f"{name}.weight"], slots.get(f"{name}.bias")
        if combine is not None:  # one product over every row, added to the sum
            rows = residual.transpose(0, 1).reshape(residual.shape[1], k * b)
            grad_w.add_(row_sums(rows, h.reshape(k * b, -1)), alpha=scale)
            if grad_b is not None:
                grad_b.add_(rows.sum(dim=1), alpha=scale)
            return out, loss
        torch.baddbmm(grad_w, residual, h, beta=0, alpha=scale, out=grad_w)
        if grad_b is not None:
            torch.sum(residual, dim=2, out=grad_b).mul_(scale)
        return out, loss

    @property
    def one_linear(self) -> bool:
        """Whether the model is one linear layer on the flattened input under
        cross-entropy (a softmax regression: `_softmax_regression`, `class_logits`)."""
        return self.softmax_regression is not None and self.flat_input

    def class_logits(self, theta: Tensor, x: Tensor) -> Tensor:
        """A softmax regression's (`one_linear`) outputs (B, classes) at parameters θ
        (d,) on inputs x (B, ...) (`row_logits`), laid out class-major, (classes, B) in
        memory (`objective.class_major`: the test loss then takes its log-softmax
        across the rows, 13× as fast as along each row's 10 classes)."""
        name = self.softmax_regression
        assert name is not None and self.flat_input, "class_logits: not a softmax regression"
        params = self.flat.unflatten(theta)
        weight, bias = params[f"{name}.weight"], params.get(f"{name}.bias")
        return row_logits(weight, x.reshape(len(x), -1), bias).t().contiguous().t()

    def packed(self, rows: Tensor) -> Tensor | None:
        """A softmax regression's input rows (n, ...) packed for
        `packed_class_logits` (`packed_rows`); None for any other model, or where the
        rows cannot be packed."""
        name = self.softmax_regression
        if name is None or not self.flat_input:
            return None
        return packed_rows(rows, cast(nn.Linear, self.modules[name]).out_features)

    def packed_class_logits(self, theta: Tensor, packed: Tensor) -> Tensor:
        """`class_logits` on rows packed once (`packed_rows`): W Xᵀ + b, made (classes,
        B) in memory by the product itself, with the rows as oneDNN's weight (W2's
        2000 test rows of 3×32×32 on a CPU core: 1.8 ms against 2.4, and no transposed
        copy). The same values to float rounding."""
        name = self.softmax_regression
        assert name is not None and self.flat_input, "class_logits: not a softmax regression"
        params = self.flat.unflatten(theta)
        weight, bias = params[f"{name}.weight"], params.get(f"{name}.bias")
        out = torch.ops.mkldnn._linear_pointwise(weight, packed, None, "none", [], "")
        return (out if bias is None else out.add_(bias[:, None])).t()

    def losses(
        self, params: dict[str, Tensor], x: Tensor, y: Tensor, weights: Tensor | None = None
    ) -> Tensor:
        """Each client's mean loss over its batch, or with row weights v (0: a padding
        row) Σ_j v_j ℓ_j / Σ_j v_j."""
        k, b = y.shape
        out = self.outputs(params, x).reshape(k * b, -1)
        per_sample = objective.loss(self.flat.objective, out, y.reshape(-1), "none")
        if weights is None:
            return per_sample.view(k, b).mean(dim=1)
        return (per_sample.view(k, b) * weights).sum(dim=1) / weights.sum(dim=1)

    def outputs(self, params: dict[str, Tensor], x: Tensor) -> Tensor:
        """The K models' outputs (K, B, classes) on their own inputs x (K, B, ...)."""
        k, b = x.shape[:2]
        env: dict[fx.Node, Tensor] = {}
        for node in self.graph.nodes:
            if node.op == "placeholder":
                env[node] = x.reshape(k, b, -1) if self.flat_input else _stack_input(x)
            elif node.op == "output":
                return env[node.args[0]]
            else:
                env[node] = self._run(node, env[node.args[0]], params, k, b)
        raise AssertionError("an fx graph ends with its output node")

    def _run(self, node: fx.Node, h: Tensor, params: dict[str, Tensor], k: int, b: int) -> Tensor:
        kind = self.kinds[node]
        if kind == "flatten":
            return _to_features(h, k, b)
        if kind == "relu":
            return torch.relu(h)  # never in place, whatever the module says
        name = str(node.target)
        if kind == "conv":
            return _conv(cast(nn.Conv2d, self.modules[name]), h, params, name, k)
        if kind == "linear":
            return _linear(h, params, name)
        return self.modules[name](h)  # pooling: per channel, so as it is


# oneDNN's linear kernel is a private op of torch's compiled graphs: used where this
# torch build has it, BLAS otherwise (the same values to float rounding).
_ONEDNN = torch.backends.mkldnn.is_available() and hasattr(torch.ops.mkldnn, "_linear_pointwise")
_PACKS = _ONEDNN and hasattr(torch.ops.mkldnn, "_reorder_linear_weight")


def row_logits(weight: Tensor, rows: Tensor, bias: Tensor | None) -> Tensor:
    """The (n, C) logits x Wᵀ + b of the n rows (n, F) under W (C, F). On a CPU through
    oneDNN's linear kernel (`torch.ops.mkldnn._linear_pointwise`, which torch's compiled
    graphs call for a linear layer), 1.5× as fast as BLAS on this product of few output
    columns (a CPU core, 10 classes of 3×32×32: 2000 rows 2.3 ms against 3.4, 210 rows
    0.21 against 0.28). Elsewhere (an accelerator, float64) as W xᵀ + b, which BLAS
    runs 1.8× as fast as x Wᵀ on a CPU core (2000 rows: 3.7 ms against 6.7). The same
    values to float rounding."""
    if rows.device.type == "cpu" and rows.dtype == torch.float32 and _ONEDNN:
        return torch.ops.mkldnn._linear_pointwise(rows, weight, bias, "none", [], "")
    lead = rows.t()
    return (weight @ lead if bias is None else torch.addmm(bias[:, None], weight, lead)).t()


def packed_rows(rows: Tensor, classes: int) -> Tensor | None:
    """The rows (n, ...) reordered into oneDNN's blocked layout of a linear layer's
    weight for products with the `classes` rows of a softmax regression's W
    (`torch.ops.mkldnn._reorder_linear_weight`, as torch's compiled graphs pack a
    constant weight), for `StackedModel.packed_class_logits`; None where that layout
    does not apply (another device or dtype, a torch build without it)."""
    if rows.device.type != "cpu" or rows.dtype != torch.float32 or not _PACKS:
        return None
    return torch.ops.mkldnn._reorder_linear_weight(rows.reshape(len(rows), -1), classes)


def row_sums(weights: Tensor, rows: Tensor) -> Tensor:
    """Σ_j a_j x_jᵀ (C, F): the n rows x (n, F) summed with the weights a (C, n), as a
    linear layer's weight gradient sums them. On a CPU through oneDNN's linear kernel
    with the rows' transpose, a strided view, as its weight (`row_logits`): 2× as fast
    as BLAS on this product of few output rows (a CPU core, 10 classes of 3×32×32, 210
    rows: 0.14 ms against 0.30). The same values to float rounding."""
    if rows.device.type == "cpu" and rows.dtype == torch.float32 and _ONEDNN:
        return torch.ops.mkldnn._linear_pointwise(weights, rows.t(), None, "none", [], "")
    return weights @ rows


def stack(flat: FlatModel, sample_shape: tuple[int, ...]) -> StackedModel | None:
    """The stacked form of `flat` on inputs of `sample_shape`, or None where the model
    has a layer, or an input, that stacking does not cover."""
    if flat.objective == "regression" or flat.buffers or len(sample_shape) not in (1, 3):
        return None
    try:
        traced = fx.symbolic_trace(flat.module)
    except Exception:  # untraceable forward (data-dependent control flow, …)
        return None
    graph = traced.graph
    modules: Modules = dict(flat.module.named_modules())
    kinds: dict[fx.Node, Kind] = {}
    layout: dict[fx.Node, Layout] = {}
    for node in graph.nodes:
        if node.op == "placeholder":
            layout[node] = "image" if len(sample_shape) == 3 else "features"
            continue
        if not node.args or not isinstance(node.args[0], fx.Node):
            return None
        before = layout[node.args[0]]
        if node.op == "output":
            if before != "features":
                return None
            sample_bytes = _largest_activation(traced, sample_shape)
            _pool_before_relu(graph, kinds)
            return StackedModel(flat, graph, kinds, modules, sample_bytes)
        kind = _kind(node, modules)
        if kind is None or _NEEDS.get(kind, before) != before:
            return None
        kinds[node], layout[node] = kind, _GIVES.get(kind, before)
    return None


def _largest_activation(traced: fx.GraphModule, sample_shape: tuple[int, ...]) -> int:
    """Bytes of the largest tensor one sample makes on its way through the model (the
    input included), by running the graph on one zero sample. Not `ShapeProp`: it
    imports sympy, 1.7 s of a run's start-up."""
    param = next(traced.parameters(), torch.zeros(()))
    sample = torch.zeros(1, *sample_shape, dtype=param.dtype, device=param.device)
    sizes: list[int] = []

    class Sizes(fx.Interpreter):
        def run_node(self, n: fx.Node) -> Any:
            out = super().run_node(n)
            if isinstance(out, Tensor):
                sizes.append(out.numel() * out.element_size())
            return out

    with torch.no_grad():
        Sizes(traced).run(sample)
    return max(sizes)


def _kind(node: fx.Node, modules: Modules) -> Kind | None:
    """What a node does, among what stacking covers (None: something else)."""
    if _is_flatten(node, modules):
        return "flatten"
    if node.op == "call_module":
        module = modules[str(node.target)]
        if isinstance(module, nn.ReLU):
            return "relu"
        if isinstance(module, nn.Conv2d):
            plain = module.groups == 1 and module.padding_mode == "zeros"
            return "conv" if plain else None
        if isinstance(module, nn.Linear):
            return "linear"
        if isinstance(module, nn.MaxPool2d):
            return "max_pool"
        if isinstance(module, nn.AvgPool2d):
            return "avg_pool"
        return None
    relu = (node.op == "call_function" and node.target in _RELU_FUNCTIONS) or (
        node.op == "call_method" and node.target == "relu"
    )
    return "relu" if relu and len(node.args) == 1 and not node.kwargs else None


def _pool_before_relu(graph: fx.Graph, kinds: dict[fx.Node, Kind]) -> None:
    """Rewrites max-pool(ReLU(h)) as ReLU(max-pool(h)): the same values and gradients
    (ReLU is monotone, so it commutes with max, ties included), with the ReLU and its
    gradient on the pooled activations, a quarter of the size for 2×2 pooling."""
    for relu in list(graph.nodes):
        users = list(relu.users)
        if kinds.get(relu) != "relu" or len(users) != 1:
            continue
        pool = users[0]
        if kinds.get(pool) != "max_pool":
            continue
        pool.replace_input_with(relu, relu.args[0])
        pool.replace_all_uses_with(relu)
        relu.args = (pool,)
        pool.append(relu)
    graph.lint()


def _is_flatten(node: fx.Node, modules: Modules) -> bool:
    """Flattening everything after the batch dimension, in any of its spellings."""
    if node.op == "call_module":
        module = modules[str(node.target)]
        return isinstance(module, nn.Flatten) and (module.start_dim, module.end_dim) == (1, -1)
    named = (node.op == "call_function" and node.target is torch.flatten) or (
        node.op == "call_method" and node.target == "flatten"
    )
    start = node.args[1] if len(node.args) > 1 else node.kwargs.get("start_dim", 0)
    end = node.args[2] if len(node.args) > 2 else node.kwargs.get("end_dim", -1)
    return named and (start, end) == (1, -1)


def _flattened_first(graph: fx.Graph, kinds: dict[fx.Node, Kind]) -> bool:
    """Whether the input is only ever flattened: then it enters as (K, B, F) features,
    a view of the clients' batches (K, B, ...), not through the channels-last copy that
    convolutions need (then flattened back by a second copy)."""
    (placeholder,) = (n for n in graph.nodes if n.op == "placeholder")
    return all(kinds.get(user) == "flatten" for user in placeholder.users)


def _single_linear(graph: fx.Graph, kinds: dict[fx.Node, Kind]) -> str | None:
    """The name of the model's one layer where it is a linear layer on the flattened
    input (softmax regression), else None."""
    linear = [n for n, kind in kinds.items() if kind == "linear"]
    rest = {kind for kind in kinds.values() if kind != "linear"}
    if len(linear) != 1 or not rest <= {"flatten"}:
        return None
    (output,) = (n for n in graph.nodes if n.op == "output")
    return str(linear[0].target) if output.args[0] is linear[0] else None


def _stack_input(x: Tensor) -> Tensor:
    if x.dim() == 3:  # (K, B, F) features
        return x
    k, b, c, height, width = x.shape  # one copy into (B, H, W, K·C): channels-last (B, K·C, H, W)
    return x.permute(1, 3, 4, 0, 2).reshape(b, height, width, k * c).permute(0, 3, 1, 2)


def _to_features(h: Tensor, k: int, b: int) -> Tensor:
    if h.dim() == 3:
        return h
    return h.reshape(b, k, -1).transpose(0, 1)  # (B, K·C, H, W) → (K, B, C·H·W)


def _conv(module: nn.Conv2d, h: Tensor, params: dict[str, Tensor], name: str, k: int) -> Tensor:
    weight = params[f"{name}.weight"]  # (K, O, C, kh, kw)
    bias = params.get(f"{name}.bias")
    padding: Any = module.padding
    return F.conv2d(
        h,
        weight.reshape(-1, *weight.shape[2:]),
        None if bias is None else bias.reshape(-1),
        module.stride,
        padding,
        module.dilation,
        groups=k,
    )


def _linear(h: Tensor, params: dict[str, Tensor], name: str) -> Tensor:
    """The K clients' linear layers on their rows h (K, B, I), as W hᵀ + b (K, O, B),
    returned as its (K, B, O) view: the weight's gradient then comes out in the weight's
    own (K, O, I) layout. Computed as h Wᵀ it came out transposed, and copying it into
    the (K, d) gradient cost more than the products: LEAF's 3136×2048 dense layer, K =
    10, batch 10, forward and backward, 0.91 s of CPU against 0.46 s (`bench/engine.py
    --model leaf_cnn`)."""
    weight = params[f"{name}.weight"]  # (K, O, I)
    bias = params.get(f"{name}.bias")
    rows = h.transpose(1, 2)  # (K, I, B)
    if bias is None:
        return torch.bmm(weight, rows).transpose(1, 2)
    return torch.baddbmm(bias.unsqueeze(2), weight, rows).transpose(1, 2)
