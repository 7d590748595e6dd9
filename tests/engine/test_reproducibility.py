"""Same config + seed ⇒ identical records; resuming from a checkpoint changes nothing."""

import copy
from typing import Any

import pytest
import torch

from tests.engine.sinks import CheckpointsSink
from worker.engine import ListSink, RoundRecord, RunConfig, build_config, simulate

CASES = {
    "fedlaavg-markov": [
        "algorithm.name=fedlaavg",
        "availability.kind=markov",
        "algorithm.participation=4",
    ],
    "fedavg-wait-bernoulli": [
        "algorithm.name=fedavg",
        "algorithm.fedavg.wait_for_all=true",
        "availability.kind=bernoulli",
        "availability.bernoulli.p=0.4",
    ],
    "mifa-diurnal-epochs": [
        "algorithm.name=mifa",
        "availability.kind=diurnal",
        "availability.diurnal.period=3",
        "client.unit=epochs",
        "client.local_steps=1",
        "client.lr_decay=0.95",
        "client.momentum=0.5",
    ],
    "cafed-official-optimisers": [
        "algorithm.name=cafed",
        "availability.kind=markov",
        "model.name=logistic",
        "client.unit=epochs",
        "client.local_steps=1",
        "client.batch_size=16",
        "client.momentum=0.9",
        "client.momentum_state=keep",
        "server.momentum=0.9",
        "server.weight_decay=0.01",
    ],
    "fedvarp-digits-cnn": [
        "algorithm.name=fedvarp",
        "data.dataset=digits",
        "data.partition=by_class",
        "data.classes_per_client=2",
        "data.n_clients=12",
        "model.name=cnn",
        "availability.kind=bernoulli",
        "availability.bernoulli.profile=by_class",
        "algorithm.participation=5",
        "eval.client_every=4",
    ],
    "fedavg-profiles-deadline-over-commit": [
        "system.kind=profiles",
        "round.deadline_s=0.6",
        "round.over_commit=0.3",
        "availability.kind=bernoulli",
        "algorithm.participation=6",
    ],
    "fedavg-central-dp-adaptive-bernoulli": [
        "privacy.kind=central",
        "privacy.central.clipping=adaptive",
        "privacy.central.count_stddev=1",
        "algorithm.weights=uniform",
        "availability.kind=bernoulli",
    ],
    "mifa-local-dp-diurnal": [
        "privacy.kind=local",
        "algorithm.name=mifa",
        "availability.kind=diurnal",
        "availability.diurnal.period=3",
    ],
    "fednova-fedscale-partial": [
        "algorithm.name=fednova",
        "system.kind=fedscale",
        "client.partial_work=keep",
        "client.local_steps=20",
        "data.n_clients=40",
    ],
}


def config(name: str, *extra: str) -> RunConfig:
    base: dict[str, Any] = {"rounds": 12, "eval": {"checkpoint_every": 5, "every": 2}}
    return build_config(base, [*CASES[name], *extra])


def run(cfg: RunConfig, checkpoint: dict[str, Any] | None = None) -> ListSink:
    sink = ListSink()
    simulate(cfg, sink, checkpoint=checkpoint)
    return sink


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_same_seed_same_records(name: str) -> None:
    a, b = run(config(name)), run(config(name))
    other = run(config(name, "seed=1"))

    assert [r.deterministic() for r in a.records] == [r.deterministic() for r in b.records]
    assert [r.deterministic() for r in a.records] != [r.deterministic() for r in other.records]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_resume_from_checkpoint_equals_uninterrupted_run(name: str) -> None:
    cfg = config(name)
    straight = run(cfg)
    first = CheckpointsSink()
    simulate(cfg, first, should_stop=lambda: len(first.records) >= 7)
    # The periodic checkpoint (every 5 rounds), then the one where the run stopped.
    assert [c["round"] for c in first.checkpoints] == [5, 7]

    for checkpoint in first.checkpoints:
        resumed = run(cfg, checkpoint=checkpoint)

        combined = first.records[: checkpoint["round"]] + resumed.records
        expected = [r.deterministic() for r in straight.records]
        assert [r.deterministic() for r in combined] == expected


def test_should_stop_ends_between_rounds() -> None:
    sink = ListSink()

    summary = simulate(config("fedlaavg-markov"), sink, should_stop=lambda: len(sink.records) >= 3)

    assert summary.stopped and len(sink.records) == 3 and summary["rounds_done"] == 3


class CopyingSink(ListSink):
    """Also keeps a deep copy of everything as it arrives."""

    def __init__(self) -> None:
        super().__init__()
        self.copies: list[Any] = []

    def on_round(self, record: RoundRecord) -> None:
        super().on_round(record)
        self.copies.append(copy.deepcopy(record))

    def on_checkpoint(self, state: dict[str, Any]) -> None:
        super().on_checkpoint(state)
        self.copies.append((state, copy.deepcopy(state)))


@pytest.mark.parametrize("name", list(CASES))
def test_records_and_states_are_snapshots(name: str) -> None:
    # Sinks keep them and write them later: the engine must not change them afterwards.
    sink = CopyingSink()
    simulate(config(name), sink)
    states = [c for c in sink.copies if isinstance(c, tuple)]
    assert [c for c in sink.copies if not isinstance(c, tuple)] == sink.records
    assert len(states) == 3
    for kept, copied in states:
        assert same(kept, copied)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
