"""Server memory of every client's latest update, stored divided by its local lr."""

from __future__ import annotations

import torch
from torch import Tensor

from worker.engine.masks import ids_of
from worker.engine.metrics import MetricSpec

MEMORY_FILLED = MetricSpec(
    "memory_filled",
    "clients with a stored update",
    panel="algorithm",
    unit="%",
    scale=100.0,
    description="Share of the clients whose latest update the server's memory holds.",
)


class ClientMemory:
    """G: (N, d) latest delta of each client / the local lr in force when computed.

    Reading multiplies back by the current lr, so lr decay does not distort stale
    entries. `filled[i]` is true once client i has reported; `ids` lists those clients
    (ascending, on the CPU), kept as they report, so that a round reads them without a
    pass over the N clients.
    """

    def __init__(self, n: int, d: int, device: torch.device) -> None:
        self.g = torch.zeros(n, d, device=device)
        self.filled = torch.zeros(n, dtype=torch.bool, device=device)
        self.ids = torch.zeros(0, dtype=torch.long)

    def write(self, ids: Tensor, deltas: Tensor, lr: float) -> Tensor:
        """Store `deltas` for `ids`; return the normalised entries they replace."""
        old = self.g[ids].clone()
        self.g[ids] = deltas / lr
        new = ids[~self.filled[ids]]
        if len(new):
            self.ids = torch.cat([self.ids, new.cpu()]).unique()  # sorted
        self.filled[ids] = True
        return old

    def filled_share(self) -> dict[str, float]:
        """The `memory_filled` metric: share of clients with a stored update, as the
        float32 mean of `filled` gives it (a sum of ones is exact in float32)."""
        share = torch.tensor(float(len(self.ids))).div_(len(self.filled))
        return {MEMORY_FILLED.name: float(share)}

    def tensors(self) -> dict[str, Tensor]:
        return {"g": self.g, "filled": self.filled}

    def load(self, state: dict[str, Tensor]) -> None:
        self.g = state["g"].to(self.g.device)
        self.filled = state["filled"].to(self.filled.device)
        self.ids = ids_of(self.filled).cpu()
