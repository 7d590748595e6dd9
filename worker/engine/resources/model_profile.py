"""A model's size and cost, read from it built on the `meta` device (shapes without
storage): its parameter count d, and per sample its floating-point operations (by
`FlopCounterMode`'s formulas) and the bytes of the tensors its forward pass makes."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from torch.utils.flop_counter import flop_registry

from worker.engine.models import build_model, objective
from worker.engine.sections import ModelSection
from worker.engine.training.evaluate import row_bytes
from worker.engine.training.flat import FlatModel
from worker.engine.training.objective import loss
from worker.engine.training.stacked import StackedModel, stack


@dataclass(frozen=True)
class ModelProfile:
    module: nn.Module  # on the meta device
    d: int
    forward_flops: int  # one sample
    train_flops: int  # one sample, forward and backward
    activation_bytes: int  # one sample: every tensor the forward pass makes
    largest_activation_bytes: int  # one sample: the largest of them
    eval_row_bytes: int  # one sample: a layer's largest output (`evaluate.row_bytes`)
    # its stacked form, on the meta device, where the vmap backend runs it as one
    # stacked model (training/stacked.py; None: through `torch.func.vmap`)
    stacked: StackedModel | None

    @property
    def one_linear(self) -> bool:
        """A softmax regression (`StackedModel.one_linear`)."""
        return self.stacked is not None and self.stacked.one_linear


class _Counter(TorchDispatchMode):
    """What the operations under it do: floating-point operations, by the formulas of
    `FlopCounterMode` (torch.utils.flop_counter), and bytes of the tensors they create
    (views excluded). FlopCounterMode itself also hooks every module call of the
    process while it counts, those of a run training in another thread included."""

    def __init__(self) -> None:
        super().__init__()
        self.flops = 0
        self.bytes = 0
        self.largest = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        formula = flop_registry.get(func.overloadpacket)
        if formula is not None:
            self.flops += formula(*args, **kwargs, out_val=out)
        if not func.is_view:
            made = [
                t.numel() * t.element_size()
                for t in tree_leaves(out)
                if isinstance(t, torch.Tensor)
            ]
            self.bytes += sum(made)
            self.largest = max(self.largest, *made, 0)
        return out


PROBE_BATCH = 2  # batch norm needs two samples; the counts are per sample (linear in it)


@functools.lru_cache(maxsize=256)
def model_profile(
    section: type[ModelSection],
    model_json: str,
    shape: tuple[int, ...],
    n_classes: int,
    regression: bool,
) -> ModelProfile:
    """The model of the `model` section `model_json` (JSON of a `section`, so that it
    can key the cache) built on the meta device: d, and per sample its operations
    (forward, and forward with backward) and the bytes of the tensors its forward pass
    makes."""
    cfg = section.model_validate_json(model_json)
    kind = objective(cfg, "regression" if regression else "classification")
    with torch.device("meta"):
        module = build_model(cfg, shape, n_classes)
        x = torch.empty(PROBE_BATCH, *shape)
        y = torch.empty(PROBE_BATCH) if regression else torch.zeros(PROBE_BATCH, dtype=torch.long)
    with _Counter() as forward:
        out = module(x)
    with _Counter() as backward:
        loss(kind, out, y).backward()
    flat = FlatModel(module, kind)
    stacked = stack(flat, shape)
    return ModelProfile(
        module=module,
        d=flat.dim,
        forward_flops=forward.flops // PROBE_BATCH,
        train_flops=(forward.flops + backward.flops) // PROBE_BATCH,
        activation_bytes=forward.bytes // PROBE_BATCH,
        largest_activation_bytes=forward.largest // PROBE_BATCH,
        eval_row_bytes=row_bytes(module, shape),
        stacked=stacked,
    )
