"""What the engine reports: one `RoundRecord` per round, one `Summary` per run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

NON_DETERMINISTIC = ("wall_s",)


@dataclass(frozen=True, eq=False)
class ClientWeights:
    """Aggregation weights by client, as two arrays: `ids` ascending, `values` aligned.

    A memory algorithm weights every client every round; as a dict of a thousand Python
    numbers, building the weights and packing them again for the database cost more
    than the round's arithmetic on a small model.
    """

    ids: np.ndarray  # int64
    values: np.ndarray

    @classmethod
    def from_dict(cls, weights: dict[int, float]) -> ClientWeights:
        ids = sorted(weights)
        return cls(np.array(ids, dtype=np.int64), np.array([weights[i] for i in ids]))

    def to_dict(self) -> dict[int, float]:
        return dict(zip(self.ids.tolist(), self.values.tolist(), strict=True))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ClientWeights)
            and np.array_equal(self.ids, other.ids)
            and np.array_equal(self.values, other.values)
        )


@dataclass(frozen=True, eq=False)
class ClientTimeline:
    """A round in simulated time, for every client the server selected (a system
    model's runs): its id, when the round started, when its download, its computation
    and its activity ended (its update arrived, or it stopped), in seconds, and the
    outcome of its update (`worker.engine.system.timing`: 1 kept, 2 partial, 3
    dropped, 4 discarded: by over-commitment, or an async update older than the ring).

    `begin`: when each client started, where that is not the round's start: a server
    update of an async run holds the clients that arrived or stopped since the previous
    one, each started on the version it trained from (`start`: the previous update)."""

    ids: np.ndarray  # int64
    start: float
    download_end: np.ndarray  # float64
    compute_end: np.ndarray
    end: np.ndarray
    outcome: np.ndarray  # int8
    begin: np.ndarray | None = None  # float64

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ids": self.ids.tolist(),
            "start": self.start,
            "download_end": self.download_end.tolist(),
            "compute_end": self.compute_end.tolist(),
            "end": self.end.tolist(),
            "outcome": self.outcome.tolist(),
        }
        if self.begin is not None:
            out["begin"] = self.begin.tolist()
        return out


@dataclass(frozen=True, eq=False)
class ClientFacts:
    """What a run knows of each client before its first round, in round 0's record:
    its data share (the target weights α, Σ = 1) and, with a system model, its device's
    seconds for a round's whole work (`Clock.work_s`: download, local steps, upload),
    and, where the privacy accountant amplifies each client by sampling at its own
    availability, that rate π_k (`RunPrivacy.rates`); and the rounds after which their
    availability repeats (`Availability.period`), where it does: what a run recorded
    elsewhere declares, for its summary's "x̄ last period"."""

    data_share: np.ndarray  # float64 (N,)
    work_s: np.ndarray | None = None  # float64 (N,)
    privacy_rate: np.ndarray | None = None  # float64 (N,)
    availability_period: int | None = None

    def to_dict(self) -> dict[str, Any]:
        work = None if self.work_s is None else self.work_s.tolist()
        out: dict[str, Any] = {"data_share": self.data_share.tolist(), "work_s": work}
        if self.privacy_rate is not None:
            out["privacy_rate"] = self.privacy_rate.tolist()
        if self.availability_period is not None:
            out["availability_period"] = self.availability_period
        return out


@dataclass(eq=False)
class RoundRecord:
    """One finished round.

    `metrics` holds the scalars evaluated this round (`test_acc`, `train_loss`, ...);
    `weights` holds each client whose (possibly stale) update entered the model and its
    aggregation weight; `client_acc` is the per-client accuracy vector on rounds where
    per-client evaluation ran. `available` and `selected` are int64 arrays of client
    ids; with a system model `selected` holds the clients whose update the round kept,
    and `timeline` every client it selected. `clients`: the clients' facts, in round
    0's record of a simulated run. Everything but `wall_s` is identical for the same
    config and seed on CPU.
    """

    round: int
    metrics: dict[str, float]
    available: np.ndarray
    selected: np.ndarray
    weights: ClientWeights
    wall_s: float = 0.0
    client_acc: list[float] | None = None
    timeline: ClientTimeline | None = None
    clients: ClientFacts | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"round": self.round, **self.metrics}
        out["available"] = self.available.tolist()
        out["selected"] = self.selected.tolist()
        out["weights"] = {str(k): v for k, v in self.weights.to_dict().items()}
        out["wall_s"] = self.wall_s
        if self.client_acc is not None:
            out["client_acc"] = self.client_acc
        if self.timeline is not None:
            out["timeline"] = self.timeline.to_dict()
        if self.clients is not None:
            out["clients"] = self.clients.to_dict()
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RoundRecord) and self.to_dict() == other.to_dict()

    def deterministic(self) -> dict[str, Any]:
        """The record without its timing fields (for reproducibility checks)."""
        out = self.to_dict()
        for key in NON_DETERMINISTIC:
            out.pop(key)
        return out


@dataclass(frozen=True)
class Summary:
    """The run's summary: every summary value of the metric catalogue
    (`metrics.catalogue()`, kind `summary`) by name, as `worker.engine.summary` computes
    them, None where the run recorded nothing to compute one from; `stopped` says the
    run stopped before its last round."""

    values: Mapping[str, float | int | None]
    stopped: bool = False

    def __getitem__(self, name: str) -> float | int | None:
        return self.values[name]

    def to_dict(self) -> dict[str, Any]:
        return {**self.values, "stopped": self.stopped}
