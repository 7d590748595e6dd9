"""A model viewed as a function of one flat parameter vector θ ∈ R^d."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.func import functional_call

from worker.engine.training import objective
from worker.engine.training.objective import Objective
from worker.engine.training.stacked import StackedModel, stack


class FlatModel:
    """`objective`: what the output is trained and scored against (`objective.py`)."""

    def __init__(self, module: nn.Module, objective: Objective) -> None:
        self.module = module
        self.objective = objective
        named = list(module.named_parameters())
        self.names = [n for n, _ in named]
        self.shapes = [tuple(p.shape) for _, p in named]
        self.numels = [math.prod(s) for s in self.shapes]
        self.buffers = {n: b for n, b in module.named_buffers()}
        self._stacked: dict[tuple[int, ...], StackedModel | None] = {}

    @property
    def dim(self) -> int:
        return sum(self.numels)

    def initial(self) -> Tensor:
        return torch.cat([p.detach().reshape(-1) for p in self.module.parameters()])

    def unflatten(self, theta: Tensor) -> dict[str, Tensor]:
        parts = theta.split(self.numels, dim=-1)
        lead = theta.shape[:-1]
        return {
            n: p.reshape(*lead, *s) for n, p, s in zip(self.names, parts, self.shapes, strict=True)
        }

    def forward(self, theta: Tensor, x: Tensor) -> Tensor:
        return functional_call(self.module, {**self.unflatten(theta), **self.buffers}, (x,))

    def loss(self, theta: Tensor, x: Tensor, y: Tensor) -> Tensor:
        """The mean loss of θ on the batch (x, y)."""
        return objective.loss(self.objective, self.forward(theta, x), y)

    def weighted_loss(self, theta: Tensor, x: Tensor, y: Tensor, weights: Tensor) -> Tensor:
        """Σ_j v_j ℓ_j / Σ_j v_j over the batch, with row weights v (0: a padding row)."""
        losses = objective.loss(self.objective, self.forward(theta, x), y, "none")
        return (losses * weights).sum() / weights.sum()

    def stacked(self, sample_shape: tuple[int, ...]) -> StackedModel | None:
        """K clients' copies of this model as one (see `stacked.py`), or None."""
        if sample_shape not in self._stacked:
            self._stacked[sample_shape] = stack(self, sample_shape)
        return self._stacked[sample_shape]

    def to(self, device: torch.device) -> FlatModel:
        self.module.to(device)
        self.buffers = {n: b for n, b in self.module.named_buffers()}
        return self
