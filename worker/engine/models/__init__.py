"""Models: `build_model(config, shape, n_classes)`, the architecture the config names,
fitted to the data's shapes. Models are declared with `@model` (`components.builtin()`
imports every module of this package)."""

from __future__ import annotations

from torch import nn

from worker.engine.data.federated import Task
from worker.engine.facts import ModelFacts
from worker.engine.registry import selected
from worker.engine.sections import ModelSection
from worker.engine.training.objective import Objective


def build_model(cfg: ModelSection, shape: tuple[int, ...], n_classes: int) -> nn.Module:
    entry, params = selected(cfg, cfg.components.models)
    module: nn.Module = entry.component(params, cfg, shape, n_classes)
    return module


def objective(cfg: ModelSection, task: Task) -> Objective:
    """What the model's output is trained against: the data's task, or binary
    cross-entropy for a model that declares one logit (`ModelFacts.binary`)."""
    facts: ModelFacts = cfg.components.models.get(cfg.name).facts
    return "binary" if facts.binary else task


def has_buffers(model: nn.Module) -> bool:
    """Models with buffers (batch norm) train only on the sequential backend."""
    return any(True for _ in model.buffers())


def recurrent(model: nn.Module) -> bool:
    """Models with recurrent layers (LSTM, GRU): torch.func has no batching rule for
    their kernels, so `vmap` would run them one client at a time through its fallback,
    slower than the sequential backend (`bench/datasets.py`); `auto` picks sequential."""
    return any(isinstance(m, nn.RNNBase) for m in model.modules())
