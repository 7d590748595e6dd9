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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import torch
from torch import Tensor, fx, nn
from torch.nn import functional as F

if TYPE_CHECKING:
    from worker.engine.training.flat import FlatModel

Layout = Literal["image", "features"]  # (B, K·C, H, W) channels-last | (K, B, F)

_PER_CHANNEL = (nn.ReLU, nn.MaxPool2d, nn.AvgPool2d)  # act on stacked channels as they are
_RELU_FUNCTIONS: set[Callable[..., Any]] = {torch.relu, F.relu}


class StackedModel:
    def __init__(self, flat: FlatModel, graph: fx.Graph) -> None:
        self.flat = flat
        self.graph = graph
        self.modules = dict(flat.module.named_modules())

    def grad_and_loss(
        self, theta: Tensor, x: Tensor, y: Tensor, out: Tensor
    ) -> tuple[Tensor, Tensor]:
        """Per-client gradients, written into `out` (K, d), and losses (K,) at
        parameters θ (K, d), on each client's batch x (K, B, ...) with labels y (K, B)."""
        leaves = {n: p.detach().requires_grad_() for n, p in self.flat.unflatten(theta).items()}
        losses = self.losses(leaves, x, y)
        grads = torch.autograd.grad(losses.sum(), list(leaves.values()))
        for grad, slot in zip(grads, self.flat.unflatten(out).values(), strict=True):
            slot.copy_(grad)  # one copy each, whatever the gradient's memory layout
        return out, losses.detach()

    def losses(self, params: dict[str, Tensor], x: Tensor, y: Tensor) -> Tensor:
        k, b = y.shape
        env: dict[fx.Node, Tensor] = {}
        for node in self.graph.nodes:
            if node.op == "placeholder":
                env[node] = _stack_input(x)
            elif node.op == "output":
                out = env[node.args[0]].reshape(k * b, -1)
                per_sample = F.cross_entropy(out, y.reshape(-1), reduction="none")
                return per_sample.view(k, b).mean(dim=1)
            else:
                env[node] = self._run(node, env[node.args[0]], params, k, b)
        raise AssertionError("an fx graph ends with its output node")

    def _run(self, node: fx.Node, h: Tensor, params: dict[str, Tensor], k: int, b: int) -> Tensor:
        if _is_flatten(node, self.modules):
            return _to_features(h, k, b)
        if _is_relu(node, self.modules):
            return torch.relu(h)  # never in place, whatever the module says
        if node.op == "call_module":
            module = self.modules[str(node.target)]
            if isinstance(module, nn.Conv2d):
                return _conv(module, h, params, str(node.target), k)
            if isinstance(module, nn.Linear):
                return _linear(h, params, str(node.target))
        return self.modules[str(node.target)](h)  # pooling: per channel, so as it is


def stack(flat: FlatModel, sample_shape: tuple[int, ...]) -> StackedModel | None:
    """The stacked form of `flat` on inputs of `sample_shape`, or None where the model
    has a layer, or an input, that stacking does not cover."""
    if flat.task != "classification" or flat.buffers or len(sample_shape) not in (1, 3):
        return None
    try:
        graph = fx.symbolic_trace(flat.module).graph
    except Exception:  # untraceable forward (data-dependent control flow, …)
        return None
    modules = dict(flat.module.named_modules())
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
            _pool_before_relu(graph, modules)
            return StackedModel(flat, graph)
        after = _layout_after(node, before, modules)
        if after is None:
            return None
        layout[node] = after
    return None


def _layout_after(node: fx.Node, before: Layout, modules: dict[str, nn.Module]) -> Layout | None:
    if _is_flatten(node, modules):
        return "features"
    if node.op == "call_module":
        module = modules[str(node.target)]
        if isinstance(module, nn.Conv2d):
            plain = module.groups == 1 and module.padding_mode == "zeros"
            return "image" if plain and before == "image" else None
        if isinstance(module, nn.Linear):
            return "features" if before == "features" else None
        if isinstance(module, _PER_CHANNEL):
            return before if before == "image" or isinstance(module, nn.ReLU) else None
        return None
    return before if _is_relu(node, modules) else None


def _is_relu(node: fx.Node, modules: dict[str, nn.Module]) -> bool:
    if node.op == "call_module":
        return isinstance(modules[str(node.target)], nn.ReLU)
    named = (node.op == "call_function" and node.target in _RELU_FUNCTIONS) or (
        node.op == "call_method" and node.target == "relu"
    )
    return named and len(node.args) == 1 and not node.kwargs


def _pool_before_relu(graph: fx.Graph, modules: dict[str, nn.Module]) -> None:
    """Rewrites max-pool(ReLU(h)) as ReLU(max-pool(h)): the same values and gradients
    (ReLU is monotone, so it commutes with max, ties included), with the ReLU and its
    gradient on the pooled activations, a quarter of the size for 2×2 pooling."""
    for relu in list(graph.nodes):
        users = list(relu.users)
        if not _is_relu(relu, modules) or len(users) != 1:
            continue
        pool = users[0]
        if pool.op != "call_module" or not isinstance(modules[str(pool.target)], nn.MaxPool2d):
            continue
        pool.replace_input_with(relu, relu.args[0])
        pool.replace_all_uses_with(relu)
        relu.args = (pool,)
        pool.append(relu)
    graph.lint()


def _is_flatten(node: fx.Node, modules: dict[str, nn.Module]) -> bool:
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
    weight = params[f"{name}.weight"].transpose(1, 2)  # (K, I, O)
    bias = params.get(f"{name}.bias")
    if bias is None:
        return torch.bmm(h, weight)
    return torch.baddbmm(bias.unsqueeze(1), h, weight)
