"""`client.momentum_state = "keep"`: each client's local momentum buffer lives on
across rounds, as in a client that owns a persistent `torch.optim.SGD`."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from torch import Tensor
from torch.testing import assert_close

from worker.engine import ListSink, RunConfig, build_config, simulate
from worker.engine.data import load_data
from worker.engine.loop import Simulation
from worker.engine.models import build_model
from worker.engine.resources import estimate
from worker.engine.training.batches import batch_indices
from worker.engine.training.flat import FlatModel
from worker.engine.training.local import LocalSpec, train_sequential, train_vmap

Train = Callable[[FlatModel, Tensor, Tensor, LocalSpec], tuple[Tensor, Tensor]]
KEEP = ["client.momentum=0.9", "client.momentum_state=keep"]


def scalar_model() -> FlatModel:
    cfg = build_config({}, ["model.name=scalar", "data.dataset=mean_estimation"])
    return FlatModel(build_model(cfg.model, (1,), 1), "regression")


@pytest.mark.parametrize("train", [train_vmap, train_sequential])
def test_two_steps_from_kept_buffers_by_hand(train: Train) -> None:
    # ℓ = (θ − ξ)², g = 2(θ − ξ); m = 0.9, η = 0.1, w = 0.5; client 1 takes one step
    x, y = torch.zeros(2, 1), torch.tensor([1.0, -1.0])
    buf = torch.tensor([[0.2], [-0.1]])
    spec = LocalSpec(
        w=torch.tensor([0.5]),
        batches=torch.tensor([[[0], [0]], [[1], [1]]]),
        mask=torch.tensor([[1.0, 1.0], [1.0, 0.0]]),
        lr=0.1,
        momentum=0.9,
        buf=buf,
    )

    deltas, _ = train(scalar_model(), x, y, spec)

    # client 0: g = −1, b = 0.18 − 1 = −0.82, θ = 0.582;
    #           g = −0.836, b = −0.738 − 0.836 = −1.574, θ = 0.7394
    # client 1: g = 3, b = −0.09 + 3 = 2.91, θ = 0.209
    assert_close(deltas, torch.tensor([[0.2394], [-0.291]]))
    assert_close(buf, torch.tensor([[-1.574], [2.91]]))


def test_without_momentum_the_buffers_are_left_alone() -> None:
    buf = torch.tensor([[0.25]])
    spec = LocalSpec(
        w=torch.tensor([0.5]),
        batches=torch.tensor([[[0]]]),
        mask=torch.ones(1, 1),
        lr=0.1,
        buf=buf,
    )
    for train in (train_vmap, train_sequential):
        train(scalar_model(), torch.zeros(1, 1), torch.tensor([1.0]), spec)
        assert buf.tolist() == [[0.25]]


@pytest.mark.parametrize("model_name", ["linear", "cnn"])
@pytest.mark.parametrize("unit", ["steps", "epochs"])
def test_backends_agree_on_kept_buffers(model_name: str, unit: str) -> None:
    cfg = build_config(
        {"data": {"dataset": "digits", "n_clients": 40, "partition": "dirichlet"}},
        [f"model.name={model_name}"],
    )
    data = load_data(cfg.data, seed=0)
    model = FlatModel(build_model(cfg.model, data.input_shape, data.n_classes), data.task)
    clients = torch.tensor([0, 3, 7, 12])
    gen = torch.Generator().manual_seed(1)
    batches = batch_indices(data.train_offsets[clients], data.sizes[clients], 2, unit, 8, gen)
    w = model.initial()
    start = 0.01 * torch.randn(4, len(w), generator=torch.Generator().manual_seed(2))
    ends = []
    for train in (train_vmap, train_sequential):
        spec = LocalSpec(
            w=w,
            batches=batches.rows,
            mask=batches.mask,
            real=batches.real,
            lr=0.05,
            momentum=0.9,
            buf=start.clone(),
            weight_decay=1e-3,
            x_values=data.x_values,
        )
        deltas, _ = train(model, data.x_train, data.y_train, spec)
        assert spec.buf is not None
        ends.append((deltas, spec.buf))

    assert_close(ends[0][0], ends[1][0], atol=1e-5, rtol=1e-4)
    assert_close(ends[0][1], ends[1][1], atol=1e-5, rtol=1e-4)
    assert not torch.allclose(ends[0][1], start)


def config(*overrides: str, rounds: int = 4) -> RunConfig:
    return build_config({"rounds": rounds, "eval": {"every": 1}}, ["seed=5", *overrides])


def memory(sim: Simulation) -> Tensor:
    assert sim.trainer.momentum is not None
    return sim.trainer.momentum


def test_only_the_clients_that_train_change_their_buffer() -> None:
    sim = Simulation(config(*KEEP))
    first = sim.round(0).selected
    after_first = memory(sim).clone()
    assert set(after_first.abs().sum(dim=1).nonzero().flatten().tolist()) == set(first.tolist())

    second = sim.round(1).selected
    untouched = [i for i in range(sim.data.n_clients) if i not in set(second.tolist())]
    changed = memory(sim) != after_first
    assert not changed[untouched].any()
    assert changed[second].any(dim=1).all()


def test_keep_changes_a_run_only_where_a_client_trains_again() -> None:
    def records(*overrides: str) -> list[dict[str, object]]:
        sink = ListSink()
        simulate(config(*overrides), sink)
        return [r.deterministic() for r in sink.records]

    reset, kept = records("client.momentum=0.9"), records(*KEEP)

    assert kept[0] == reset[0]  # every buffer starts at zero
    assert kept[1:] != reset[1:]
    # without momentum there is nothing to keep
    assert records("client.momentum_state=keep") == records()


def test_keep_gives_the_same_run_on_both_backends() -> None:
    runs = []
    for backend in ("vmap", "sequential"):
        sink = ListSink()
        simulate(
            config(*KEEP, "client.unit=epochs", "client.batch_size=16", f"backend={backend}"), sink
        )
        runs.append([r.metrics["test_loss"] for r in sink.records])

    assert runs[0] == pytest.approx(runs[1], rel=1e-4)


def test_a_central_plan_uses_no_client_buffer() -> None:
    sim = Simulation(config(*KEEP, "algorithm.name=sgd"))
    sim.round(0)
    assert not memory(sim).any()


def test_buffers_are_checkpointed_and_an_old_checkpoint_loads_as_zeros() -> None:
    sim = Simulation(config(*KEEP))
    sim.round(0)
    state = sim.state_dict(1)
    assert torch.equal(state["trainer"]["momentum"], memory(sim).cpu())

    fresh = Simulation(config(*KEEP))  # a checkpoint of version 1 had no trainer state
    fresh.load_state_dict({**{k: v for k, v in state.items() if k != "trainer"}, "version": 1})
    assert not memory(fresh).any()
    fresh.load_state_dict(state)
    assert torch.equal(memory(fresh).cpu(), state["trainer"]["momentum"])
    assert Simulation(config()).state_dict(0)["trainer"] == {}


@pytest.mark.parametrize("backend", ["vmap", "sequential"])
def test_estimate_counts_the_buffers(backend: str) -> None:
    def found(*overrides: str) -> dict[str, float]:
        terms = estimate(config(f"backend={backend}", *overrides)).memory
        return {t.label.split(":")[0]: t.amount for t in terms}

    reset, kept = found("client.momentum=0.9"), found(*KEEP)
    n, d = 24, 10 * 2 + 2

    assert kept["client momentum buffers"] == n * d * 4
    assert "client momentum buffers" not in reset
    assert "client momentum buffers" not in found("client.momentum_state=keep")
    assert kept["checkpoint"] - reset["checkpoint"] == n * d * 4
    k_rows = 10 * d * 4 if backend == "sequential" else 0  # sequential: the K kept rows
    assert kept["local training"] - reset["local training"] == k_rows
