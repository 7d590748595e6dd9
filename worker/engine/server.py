"""The server's update of the global model from a round's aggregated direction.

The direction D = Σ_k a_k (θ_k − w) is minus the pseudo-gradient g = Σ_k a_k (w − θ_k).
With `server.momentum` m and `server.weight_decay` λ the server runs SGD on it, as
`torch.optim.SGD` (no dampening, no Nesterov) does on a model whose gradient is g:

    g = −D + λ·w,   b ← m·b + g  (b₀ = 0),   w ← w − η_s·b

With m = λ = 0 this is w ← w + η_s·D, computed as such (bit for bit the plain step).
A round with no direction (no client entered) leaves w and b as they are.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from worker.engine.sections import ServerConfig


class ServerOptimizer:
    def __init__(self, cfg: ServerConfig, dim: int, device: torch.device) -> None:
        self.lr, self.momentum, self.weight_decay = cfg.lr, cfg.momentum, cfg.weight_decay
        self.buf = torch.zeros(dim, device=device) if self.momentum else None

    def step(self, w: Tensor, direction: Tensor | None) -> Tensor:
        """The next global model from w and the round's direction D (None: w)."""
        if direction is None:
            return w
        if not (self.momentum or self.weight_decay):
            return w + self.lr * direction
        g = -direction
        if self.weight_decay:
            g = g.add(w, alpha=self.weight_decay)
        if self.buf is not None:
            self.buf.mul_(self.momentum).add_(g)
            g = self.buf
        return w.add(g, alpha=-self.lr)

    def state_dict(self) -> dict[str, Any]:
        return {} if self.buf is None else {"momentum": self.buf.detach().cpu().clone()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if self.buf is not None:
            self.buf.copy_(state["momentum"])
