"""The round contract: the loop owns the round; an algorithm plans who trains
(`select` → `Plan`) and turns their deltas into an update of the global model
(`aggregate` → `Step`).

Round t, as the loop (`worker/engine/loop.py`) runs it:

1. `plan = algorithm.select(t, w, available, gen)`;
2. the clients `plan.selected` (or, with `plan.central`, one virtual client holding all
   the data) train from w with `plan.correction` and `plan.prox_mu`, giving deltas
   Δ (K, d) = trained − w;
3. `step = algorithm.aggregate(t, w, plan, deltas, lr)`; or, where the algorithm's
   step is a weighted sum of the deltas known before training (`trains_into_sum`,
   `algorithm.summed(t, plan)` → `Summed`) and no privacy mechanism reads them, the
   clients train into that sum alone (no (K, d) deltas are written) and `Summed`
   makes the step;
4. w ← w + η_s · step.direction (unchanged when `direction` is None; with server
   momentum or weight decay, an SGD step on the pseudo-gradient −direction, see
   `worker/engine/server.py`); `step.weights` and `step.metrics` go into the round's
   record.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import torch
from torch import Tensor

from worker.engine.algorithms.memory import ClientMemory
from worker.engine.masks import Available, ids_of
from worker.engine.metrics import MetricSpec
from worker.engine.privacy.guarantee import Guarantee
from worker.engine.records import ClientWeights


def _not_provided(*args: Any) -> Tensor:
    raise NotImplementedError("this run's engine does not provide that fact")


@dataclass(frozen=True)
class AlgorithmContext:
    """What an algorithm may read about its run besides its own params."""

    n: int  # clients
    dim: int  # parameters of the model, d
    k: int  # clients that train per round (`algorithm.participation` as a count)
    alpha: Tensor  # (N,) target weights, sum 1, on `device`
    device: torch.device
    pi: Tensor  # (N,) true availability π_k (oracle estimators, bias metrics)
    lam: Tensor | None  # (N,) true correlation λ_k where the availability model has one
    # (w, clients, t) -> loss per client; `clients`: ids on the CPU, as the trainer's rows
    # are (w on the run's device)
    probe_loss: Callable[[Tensor, Tensor, int], Tensor]
    rounds: int
    server_lr: float  # η_s, applied by the loop
    seed: int
    local_steps: int  # `client.local_steps` (steps, or epochs with `client.unit`)
    # (w, clients) -> each client's mean loss on its whole test split
    test_loss: Callable[[Tensor, Tensor], Tensor] = field(default=_not_provided)
    # () -> each client's local optimum F*_k (float64, N): `training/optimum.py`
    local_optima: Callable[[], Tensor] = field(default=_not_provided)
    local_momentum: float = 0.0  # `client.momentum`


@dataclass(frozen=True)
class Plan:
    """Who trains in a round: `selected` (long ids, ascending, on the CPU), or with
    `central` one virtual client holding every sample (the deltas then have one row);
    `correction`: a (K, d) term added to each selected client's gradients
    (SCAFFOLD); `prox_mu`: the weight μ of the proximal term (μ/2)‖θ − w‖² (FedProx).

    The loop fills in the local work before `aggregate`: `planned`, each selected
    client's local steps (`client.local_steps`, or its batches over that many epochs),
    and `steps`, those it completed: fewer where a system model cut its time short
    (`client.partial_work = keep`). With a system model `selected` then holds only the
    clients whose update the round kept. In async mode (`asynchronous.py`) `selected`
    holds the updates that enter, in order of arrival (a client may appear twice),
    `staleness` the versions each is stale by and `origin` the (K, d) models they
    started from."""

    selected: Tensor
    central: bool = False
    correction: Tensor | None = None
    prox_mu: float = 0.0
    planned: Tensor | None = None  # (K,) float, on the deltas' device
    steps: Tensor | None = None  # (K,) float, on the deltas' device
    staleness: Tensor | None = None  # (K,) long, async mode
    origin: Tensor | None = None  # (K, d), async mode


@dataclass
class Step:
    """The outcome of a round: the loop applies w ← w + η_s·`direction` (None: no
    update); `weights` (N,) is the weight each client's update entered with (0: it did
    not; stale updates from a memory count); `metrics` the algorithm's own per-round
    scalars, each declared in its class's `metric_specs`; `entered`, where the algorithm
    knows it, the clients (ascending, distinct) outside which the weights are 0, so that
    the round's record reads K weights rather than searching N (at 10⁶ clients the
    search cost 3 ms). With `entered`, `weights` may hold only those clients' weights,
    in its order (`weighted_step` and the memory methods: building the (N,) vector
    cost 1.5 ms a round at 10⁶); `dense_weights` gives the (N,) vector either way."""

    direction: Tensor | None
    weights: Tensor
    metrics: dict[str, float] = field(default_factory=dict)
    entered: Tensor | None = None

    def client_weights(self) -> ClientWeights:
        """The clients with a nonzero weight, and their weights (the round's record)."""
        if self.entered is None:
            ids = ids_of(self.weights)
            values = self.weights[ids]
        else:
            values = self.weights if self._sparse() else self.weights[self.entered]
            nonzero = values != 0
            ids, values = self.entered[nonzero], values[nonzero]
        return ClientWeights(ids.cpu().numpy(), values.cpu().numpy())

    def dense_weights(self, n: int) -> Tensor:
        """The (N,) weights, 0 outside `entered`."""
        if self.entered is None or len(self.weights) == n:
            return self.weights
        return scatter(n, self.entered.to(self.weights.device), self.weights)

    def _sparse(self) -> bool:
        """Whether `weights` holds `entered`'s weights alone (as many as they; where they
        are all N clients, both readings agree)."""
        return self.entered is not None and len(self.weights) == len(self.entered)


@dataclass(frozen=True)
class Summed:
    """A round's step that is a weighted sum of the selected clients' deltas, its
    weights known before they train: Σ_i c_i Δ_i with c = `weights` × `scale`, entering
    the round's record with `weights` a (K,) and `metrics`. An algorithm that gives one
    (`Algorithm.summed`) lets the loop train the clients into that sum alone, never
    writing the (K, d) deltas; its `aggregate` reads the deltas through `step`, so both
    paths make one step."""

    weights: Tensor  # a (K,), on the device
    scale: Tensor | None = None  # (K,): each update enters the sum times this (None: 1)
    metrics: dict[str, float] = field(default_factory=dict)

    @property
    def coefficients(self) -> Tensor:
        """c (K,): each client's delta's factor in the sum."""
        return self.weights if self.scale is None else self.weights * self.scale

    def step(self, n: int, ids: Tensor, deltas: Tensor) -> Step:
        """The step from the (K, d) deltas of the clients `ids`."""
        return self.step_of_sum(n, ids, self.coefficients @ deltas if len(ids) else None)

    def step_of_sum(self, n: int, ids: Tensor, total: Tensor | None) -> Step:
        """The step from the sum Σ_i c_i Δ_i (d,) itself (None: nobody trained)."""
        return summed_step(n, ids, self.weights, total, self.metrics)


@dataclass(frozen=True)
class Footprint:
    """What an algorithm keeps and does on the server, as the run's estimate counts it
    (`worker/engine/resources/`): tensors of N rows of d floats kept across rounds
    (every client's latest update), of d floats, and of K rows of d floats alive while
    a round is aggregated (copies of the trained clients' rows, buffers); full passes
    over an (N, d) memory per round; who trains; whether a round's selection costs
    work in N² (a greedy search over the clients); and whether clients train with a
    proximal term (one more d-vector each)."""

    client_rows: int = 0
    vectors: int = 0
    round_rows: int = 0
    memory_passes: int = 0
    trainees: Literal["sample", "available", "central"] = "sample"
    pairwise: bool = False
    proximal: bool = False


class Algorithm(ABC):
    """A server algorithm, built as `cls(params, facts)`.

    Subclasses list in `state` the attributes a checkpoint must hold (tensors, dicts of
    tensors, `ClientMemory`, plain values), in `metric_specs` the catalogue entries of
    the per-round scalars their `aggregate` reports, in `footprint` the memory and work
    they add to a round, and in `privacy` whether each privacy mechanism's guarantee
    holds for them; `asynchronous` whether the loop runs them in async mode
    (`AsyncAlgorithm`).
    """

    asynchronous: ClassVar[bool] = False
    state: ClassVar[tuple[str, ...]] = ()
    metric_specs: ClassVar[tuple[MetricSpec, ...]] = ()
    footprint: ClassVar[Footprint] = Footprint()
    privacy: ClassVar[Guarantee] = Guarantee()

    @classmethod
    def privacy_problem(cls, name: str, params: Any, kind: str) -> str | None:
        """Why privacy mechanism `kind` does not hold for this algorithm, registered as
        `name`, with `params`: a message that starts with the field to change (None: it
        holds)."""
        del params
        reason = cls.privacy.problem(kind)
        return None if reason is None else f"algorithm.name: {name} {reason}"

    def __init__(self, params: Any, facts: AlgorithmContext) -> None:
        self.params = params
        self.facts = facts

    @abstractmethod
    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        """Who trains in round t from the model w; `available`: the round's available
        clients, as an (N,) bool `mask` and as `ids`; `gen` the round's generator for
        random choices."""

    @abstractmethod
    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        """The round's update from the (K, d) deltas of `plan.selected`, trained with
        local lr `lr` (memories store deltas divided by it)."""

    @classmethod
    def trains_into_sum(cls, params: Any) -> bool:
        """Whether every round's step of a run with `params` is the weighted sum that
        `summed` gives: by default, where the class gives `summed` (and not for a
        subclass that overrides `aggregate` but not `summed`). The loop then trains the
        clients into that sum unless privacy reads each delta, and the run's estimate
        counts no (K, d) deltas (`worker/engine/summed_training.py` decides for both)."""
        del params
        return cls.summed is not Algorithm.summed

    def summed(self, t: int, plan: Plan) -> Summed | None:
        """Where the run `trains_into_sum`: round t's step as a weighted sum of the
        deltas of `plan.selected`, weights known before training, `aggregate` reading
        nothing else of them (the loop then trains the clients into it alone and makes
        the step from it, without `aggregate`). None (the default): the loop passes the
        deltas to `aggregate`."""
        del t, plan
        return None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "aggregate" in cls.__dict__ and "summed" not in cls.__dict__:
            cls.summed = Algorithm.summed  # type: ignore[method-assign]  # its own aggregate
            if "trains_into_sum" not in cls.__dict__:
                cls.trains_into_sum = Algorithm.__dict__["trains_into_sum"]  # type: ignore[method-assign]

    def zeros(self, *shape: int) -> Tensor:
        return torch.zeros(*shape, device=self.facts.device)

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
                setattr(self, k, value.to(self.facts.device))
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
    """An (N,) vector holding `values` at `ids`, 0 elsewhere."""
    out = torch.zeros(n, device=values.device, dtype=values.dtype)
    out[ids] = values
    return out


def weighted_step(
    n: int, ids: Tensor, a: Tensor, deltas: Tensor, metrics: dict[str, float] | None = None
) -> Step:
    """The step Σ_i a_i Δ_i over the clients `ids` (rows of `deltas`, on the deltas'
    device), with the weights a as they are where the ids are ascending and distinct
    (`entered`), else scattered into (N,); no update when `ids` is empty."""
    return summed_step(n, ids, a, a @ deltas if len(ids) else None, metrics)


def summed_step(
    n: int, ids: Tensor, a: Tensor, total: Tensor | None, metrics: dict[str, float] | None = None
) -> Step:
    """The step `total` (d,), a sum of the clients' `ids` updates that entered with
    weights a: `weighted_step`'s, where the sum was made by the clients' training
    (`Summed`); no update when `ids` is empty."""
    if len(ids) == 0 or total is None:
        return Step(None, torch.zeros(n, device=a.device), metrics or {}, ids)
    if bool((ids[1:] > ids[:-1]).all()):  # ascending and distinct, as a plan's are
        return Step(total, a, metrics or {}, ids)
    return Step(total, scatter(n, ids, a), metrics or {})
