"""Models: `build_model(config, shape, n_classes)`, the architecture the config names,
fitted to the data's shapes. Models register with `@model` (every module of this
package that defines one is imported here)."""

from __future__ import annotations

import importlib
import pkgutil

from torch import nn

from worker.engine.data.federated import Task
from worker.engine.registry import MODELS, ModelFacts, selected
from worker.engine.sections import ModelSection
from worker.engine.training.objective import Objective

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


def build_model(cfg: ModelSection, shape: tuple[int, ...], n_classes: int) -> nn.Module:
    entry, params = selected(cfg, MODELS)
    module: nn.Module = entry.component(params, cfg, shape, n_classes)
    return module


def objective(cfg: ModelSection, task: Task) -> Objective:
    """What the model's output is trained against: the data's task, or binary
    cross-entropy for a model that declares one logit (`ModelFacts.binary`)."""
    facts: ModelFacts = MODELS.get(cfg.name).facts
    return "binary" if facts.binary else task


def has_buffers(model: nn.Module) -> bool:
    """Models with buffers (batch norm) train only on the sequential backend."""
    return any(True for _ in model.buffers())
