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


# From this many parameters a client's own products are large enough that stacking
# clients gains nothing: LEAF's FEMNIST CNN (6.6 M) trained stacked took 1.6× as long as
# one client after another at K = 10 and 1.1× at K = 100, where the tutorial CNN (62 K)
# takes a third to a fifth as long (`bench/peers.py`, `bench/engine.py`, on a CPU).
LARGE_MODEL = 1_000_000


def resolve_backend(name: str, module: torch.nn.Module) -> str:
    """`auto` picks vmap unless the model carries buffers (batch norm), recurrent
    layers (`models.recurrent`) or at least `LARGE_MODEL` parameters."""
    if name == "vmap" and has_buffers(module):
        raise ConfigError("backend: vmap cannot train models with buffers; use sequential")
    if name != "auto":
        return name
    large = sum(p.numel() for p in module.parameters()) >= LARGE_MODEL
    return "sequential" if has_buffers(module) or recurrent(module) or large else "vmap"
