"""Where a run trains (`device`) and how (`backend`: vmap or sequential), from what its
config asks and what its model holds."""

from __future__ import annotations

import torch

from worker.engine.errors import ConfigError
from worker.engine.models import has_buffers, recurrent


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device: cuda requested but no CUDA device is available")
    return torch.device(name)


def resolve_backend(name: str, module: torch.nn.Module) -> str:
    """`auto` picks vmap unless the model carries buffers (batch norm) or recurrent
    layers (`models.recurrent`)."""
    if name == "vmap" and has_buffers(module):
        raise ConfigError("backend: vmap cannot train models with buffers; use sequential")
    if name != "auto":
        return name
    return "sequential" if has_buffers(module) or recurrent(module) else "vmap"
