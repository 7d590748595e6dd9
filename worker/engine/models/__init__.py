"""`build_model`: the architecture named in the config, fitted to the data's shapes."""

from __future__ import annotations

from torch import nn

from worker.engine.config import ModelConfig
from worker.engine.errors import ConfigError
from worker.engine.models.resnet import resnet18
from worker.engine.models.zoo import Linear, Mlp, Scalar, cnn, features, lenet5


class ModelError(ConfigError):
    pass


def build_model(cfg: ModelConfig, shape: tuple[int, ...], n_classes: int) -> nn.Module:
    if cfg.name == "scalar":
        return Scalar(cfg.init or 0.0)
    if cfg.name == "linear":
        return Linear(features(shape), n_classes)
    if cfg.name == "mlp":
        return Mlp(features(shape), cfg.hidden, n_classes)
    if len(shape) != 3:
        raise ModelError(f"model.name: {cfg.name} needs image inputs, got shape {shape}")
    if cfg.name == "cnn":
        return cnn(shape, n_classes)
    if cfg.name == "lenet5":
        return lenet5(shape, n_classes)
    if cfg.name == "resnet18":
        return resnet18(shape, n_classes)
    raise ModelError(f"model.name: {cfg.name} is not available")


def has_buffers(model: nn.Module) -> bool:
    """Models with buffers (batch norm) train only on the sequential backend."""
    return any(True for _ in model.buffers())
