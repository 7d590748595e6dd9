"""Runs one round's local training on the chosen backend, from the client's own rows.

With `client.momentum_state = "keep"` (and momentum m > 0) the trainer keeps every
client's momentum buffer b_i, an (N, d) memory: a client's local training starts from
its b_i and stores back the b_i of its last step; clients that do not train keep theirs.
The central virtual client (id −1) starts from 0 and keeps nothing."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from worker.engine.config import RunConfig
from worker.engine.data.federated import FederatedData
from worker.engine.errors import ConfigError
from worker.engine.rng import torch_gen
from worker.engine.training.batches import batch_indices
from worker.engine.training.flat import FlatModel
from worker.engine.training.local import BACKENDS, LocalSpec
from worker.engine.training.optimum import local_optima


class Trainer:
    def __init__(self, config: RunConfig, data: FederatedData, model: FlatModel, backend: str):
        self.config, self.data, self.model = config, data, model
        self.train_fn = BACKENDS[backend]
        self.starts = data.train_offsets[:-1]
        self.sizes = data.sizes
        self.sizes_np = data.sizes.cpu().numpy().astype(np.int64)
        c = config.client
        kept = c.momentum > 0 and c.momentum_state == "keep"
        device = data.x_train.device
        self.momentum = torch.zeros(data.n_clients, model.dim, device=device) if kept else None

    def lr(self, t: int) -> float:
        c = self.config.client
        return c.lr * c.lr_decay**t

    def train(
        self,
        t: int,
        w: Tensor,
        clients: Tensor,
        correction: Tensor | None = None,
        prox_mu: float = 0.0,
        steps: Tensor | None = None,
        combine: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """Deltas (K, d) and mean train losses (K,) of `clients`; id -1 = all data.
        `steps`: the local steps each client completes (≥ 1; None: all it planned),
        its first ones. With `combine` c (K,), on w's device, the sum Σ_i c_i Δ_i (d,)
        in place of the deltas, which are then never held at once (`LocalSpec.combine`)."""
        starts, sizes = self._rows(clients)
        c = self.config.client
        gen = torch_gen(self.config.seed, "batches", t)
        batches = batch_indices(starts, sizes, c.local_steps, c.unit, c.batch_size, gen)
        if steps is not None:
            taken = torch.arange(batches.mask.shape[1]) < steps.cpu()[:, None]
            batches.mask = batches.mask * taken
        kept = None if self.momentum is None or _central(clients) else self.momentum[clients]
        spec = LocalSpec(
            w=w,
            batches=batches.rows.to(w.device),
            mask=batches.mask,
            lr=self.lr(t),
            real=batches.real,
            momentum=c.momentum,
            buf=kept,
            weight_decay=c.weight_decay,
            prox_mu=prox_mu,
            correction=correction,
            x_values=self.data.x_values,
            combine=combine,
        )
        result = self.train_fn(self.model, self.data.x_train, self.data.y_train, spec)
        if self.momentum is not None and kept is not None:
            self.momentum[clients] = kept  # the buffers of the clients' last steps
        return result

    def work(self, clients: Tensor) -> tuple[np.ndarray, np.ndarray]:
        """The local steps each client plans (int64) and the training samples they
        take (float64): `local_steps` batches of B rows, or that many epochs of its
        ⌈n/B⌉ batches over its n rows."""
        c = self.config.client
        if c.unit == "steps":
            steps = np.full(len(clients), c.local_steps, dtype=np.int64)
            return steps, (steps * c.batch_size).astype(np.float64)
        sizes = self.sizes_np[clients.numpy()]
        batches = -(-sizes // c.batch_size)
        return batches * c.local_steps, (sizes * c.local_steps).astype(np.float64)

    @torch.no_grad()
    def probe_loss(self, w: Tensor, clients: Tensor, t: int) -> Tensor:
        """Loss of the model w on one batch of each client's data (no training)."""
        starts, sizes = self._rows(clients)
        gen = torch_gen(self.config.seed, "probe", t)
        batches = batch_indices(starts, sizes, 1, "steps", self.config.client.batch_size, gen)
        rows = batches.rows[:, 0].to(w.device)
        was_training = self.model.module.training
        self.model.module.eval()  # batch norm: running statistics, left untouched
        x, y = self.data.x_train, self.data.y_train
        losses = [self.model.loss(w, self.data.inputs(x[r]), y[r]) for r in rows]
        self.model.module.train(was_training)
        return torch.stack(losses)

    @torch.no_grad()
    def test_loss(self, w: Tensor, clients: Tensor) -> Tensor:
        """Mean loss of the model w on each client's whole test split (NaN: no rows)."""
        offsets = self.data.test_offsets.tolist()
        was_training = self.model.module.training
        self.model.module.eval()
        losses = torch.full((len(clients),), float("nan"), device=w.device)
        for i, k in enumerate(clients.tolist()):
            lo, hi = offsets[k], offsets[k + 1]
            if hi > lo:
                x = self.data.inputs(self.data.x_test[lo:hi])
                losses[i] = self.model.loss(w, x, self.data.y_test[lo:hi])
        self.model.module.train(was_training)
        return losses

    def local_optima(self) -> Tensor:
        """Each client's local optimum F*_k on its training data (`optimum.py`)."""
        if self.data.task != "classification":
            raise ConfigError("algorithm.cafed.optimum: local_solver needs a classification task")
        x = self.data.inputs(self.data.x_train)
        return local_optima(x, self.data.y_train, self.data.train_offsets, self.data.n_classes)

    def state_dict(self) -> dict[str, Any]:
        return {} if self.momentum is None else {"momentum": self.momentum.detach().cpu().clone()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if self.momentum is not None:
            self.momentum.copy_(state["momentum"])

    def _rows(self, clients: Tensor) -> tuple[Tensor, Tensor]:
        if _central(clients):
            return torch.zeros(1, dtype=torch.long), torch.as_tensor([len(self.data.y_train)])
        return self.starts[clients], self.sizes[clients]


def _central(clients: Tensor) -> bool:
    """The one virtual client holding all the data (id −1)."""
    return len(clients) == 1 and int(clients[0]) == -1
