"""The algorithm interface: the simulation loop owns the round; an algorithm picks who
trains (`select`) and turns their deltas into the next global model (`aggregate`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import torch
from torch import Tensor

from worker.engine.algorithms.memory import ClientMemory
from worker.engine.config import RunConfig


@dataclass
class Context:
    """What every algorithm may read: sizes, target weights α, true π/λ, a loss probe."""

    n: int
    dim: int
    k: int
    alpha: Tensor  # (N,) target weights, sum 1
    device: torch.device
    config: RunConfig
    pi: Tensor  # (N,) true availability (oracle estimators, bias metrics)
    lam: Tensor | None  # (N,) true correlation where the model defines it
    probe_loss: Callable[[Tensor, Tensor, int], Tensor]  # (w, clients, t) -> loss per client


@dataclass(frozen=True)
class Footprint:
    """What an algorithm keeps and does on the server, as the run's estimate counts it
    (`worker/engine/resources.py`): tensors of N rows of d floats kept across rounds
    (every client's latest update), of d floats, and of K rows of d floats alive while
    a round is aggregated (copies of the trained clients' rows, buffers); full passes
    over an (N, d) memory per round; who trains; and whether a round's selection
    costs work in N² (a greedy search over the clients)."""

    client_rows: int = 0
    vectors: int = 0
    round_rows: int = 0
    memory_passes: int = 0
    trainees: Literal["sample", "available", "central"] = "sample"
    pairwise: bool = False


@dataclass
class Step:
    w: Tensor  # the new global parameters
    weights: Tensor  # (N,) aggregation weight of each client whose update entered; 0 = none


class Algorithm(ABC):
    """Subclasses list in `state` the attributes a checkpoint must hold, and in
    `footprint` the memory and work they add to a round."""

    state: ClassVar[tuple[str, ...]] = ()
    centralised: ClassVar[bool] = False
    footprint: ClassVar[Footprint] = Footprint()

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    @abstractmethod
    def select(self, t: int, w: Tensor, available: Tensor, gen: torch.Generator) -> Tensor:
        """Ids (long, ascending) of the clients that train in round t from the model w."""

    @abstractmethod
    def aggregate(self, t: int, w: Tensor, selected: Tensor, deltas: Tensor, lr: float) -> Step:
        """The new model from the (K, d) deltas of `selected`, trained with local lr `lr`."""

    def correction(self, selected: Tensor) -> Tensor | None:
        """Per-client gradient corrections (K, d) added during local training."""
        return None

    def prox_mu(self) -> float:
        return 0.0

    def zeros(self, *shape: int) -> Tensor:
        return torch.zeros(*shape, device=self.ctx.device)

    def state_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k in self.state:
            value = getattr(self, k)
            if isinstance(value, ClientMemory):
                value = value.tensors()
            out[k] = _cpu(value)
        return out

    def load_state_dict(self, state: dict[str, Any]) -> None:
        for k in self.state:
            current, value = getattr(self, k), state[k]
            if isinstance(current, ClientMemory):
                current.load(value)
            elif isinstance(value, Tensor):
                setattr(self, k, value.to(self.ctx.device))
            else:
                setattr(self, k, value)


def _cpu(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value.detach().cpu().clone()
    if isinstance(value, dict):
        return {k: _cpu(v) for k, v in value.items()}
    return value


def renormalised(alpha: Tensor, ids: Tensor) -> Tensor:
    """α restricted to `ids` and rescaled to sum 1."""
    a = alpha[ids]
    return a / a.sum()


def scatter(n: int, ids: Tensor, values: Tensor) -> Tensor:
    out = torch.zeros(n, device=values.device, dtype=values.dtype)
    out[ids] = values
    return out
