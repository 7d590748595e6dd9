"""FedNova's normalisation and FedAvg's C/s rescaling, by hand and in runs."""

from __future__ import annotations

import torch
from torch.testing import assert_close

from tests.engine.contexts import gen, make_algorithm, mask
from worker.engine import ListSink, build_config, simulate
from worker.engine.algorithms import Plan
from worker.engine.algorithms.fedavg import FedAvg
from worker.engine.algorithms.fednova import FedNova

DELTAS = torch.tensor([[4.0, 0.0], [0.0, 2.0]])


def test_fednova_normalises_by_completed_steps_by_hand() -> None:
    algo = make_algorithm(FedNova, [0.5, 0.5], 2, 2)
    plan = Plan(
        torch.tensor([0, 1]), planned=torch.tensor([4.0, 4.0]), steps=torch.tensor([4.0, 2.0])
    )

    step = algo.aggregate(0, torch.zeros(2), plan, DELTAS, lr=0.1)

    # p = (½, ½), τ = (4, 2), τ_eff = 3: 3·(½·Δ₀/4 + ½·Δ₁/2) = (1.5, 1.5); FedAvg: (2, 1)
    assert_close(step.direction, torch.tensor([1.5, 1.5]))
    assert_close(step.weights, torch.tensor([0.375, 0.75]))


def test_fednova_with_unequal_planned_steps_and_weights() -> None:
    algo = make_algorithm(FedNova, [0.75, 0.25, 0.0], 2, 2)
    plan = Plan(torch.tensor([0, 1]), planned=torch.tensor([1.0, 3.0]))

    step = algo.aggregate(0, torch.zeros(2), plan, DELTAS, lr=0.1)

    # τ_eff = ¾·1 + ¼·3 = 1.5: 1.5·(¾·(4, 0) + ¼·(0, 2)/3) = (4.5, 0.25)
    assert_close(step.direction, torch.tensor([4.5, 0.25]))


def test_fednova_with_equal_steps_is_fedavg() -> None:
    nova, avg = make_algorithm(FedNova, [0.5, 0.5], 2, 2), make_algorithm(FedAvg, [0.5, 0.5], 2, 2)
    plan = Plan(torch.tensor([0, 1]), planned=torch.tensor([5.0, 5.0]))

    a = nova.aggregate(0, torch.zeros(2), plan, DELTAS, 0.1)
    b = avg.aggregate(0, torch.zeros(2), plan, DELTAS, 0.1)

    assert_close(a.direction, b.direction)
    assert nova.select(0, torch.zeros(2), mask(1, 1), gen()).selected.tolist() == [0, 1]


def test_fedavg_rescales_partial_updates_by_c_over_s() -> None:
    algo = make_algorithm(FedAvg, [0.5, 0.5], 2, 2, ["algorithm.fedavg.rescale_partial=true"])
    plan = Plan(
        torch.tensor([0, 1]), planned=torch.tensor([4.0, 4.0]), steps=torch.tensor([4.0, 2.0])
    )

    step = algo.aggregate(0, torch.zeros(2), plan, DELTAS, lr=0.1)

    # client 1 did 2 of 4 steps: its update counts twice, ½·(4, 0) + ½·2·(0, 2)
    assert_close(step.direction, torch.tensor([2.0, 2.0]))


def run(*settings: str) -> ListSink:
    config = build_config(
        {"rounds": 6, "data": {"dataset": "digits", "n_clients": 20, "partition": "dirichlet"}},
        ["model.name=mlp", "client.unit=epochs", "client.local_steps=1", *settings],
    )
    sink = ListSink()
    simulate(config, sink)
    return sink


def test_fednova_differs_from_fedavg_where_clients_take_unequal_steps() -> None:
    # Dirichlet sizes differ, so one epoch is a different number of batches per client.
    nova = run("algorithm.name=fednova")
    avg = run("algorithm.name=fedavg")

    assert [r.selected.tolist() for r in nova.records] == [r.selected.tolist() for r in avg.records]
    assert nova.records[0].metrics["test_loss"] != avg.records[0].metrics["test_loss"]


def test_partial_updates_enter_fednova_and_rescaled_fedavg() -> None:
    timed = ["system.kind=profiles", "round.deadline_s=0.4", "client.partial_work=keep"]
    nova = run("algorithm.name=fednova", *timed)
    plain = run("algorithm.name=fedavg", *timed)
    rescaled = run("algorithm.name=fedavg", "algorithm.fedavg.rescale_partial=true", *timed)

    assert sum(r.metrics["partial_updates"] for r in nova.records) > 0
    losses = {s.records[-1].metrics["test_loss"] for s in (nova, plain, rescaled)}
    assert len(losses) == 3


def test_fednova_with_local_momentum_normalises_by_the_momentum_weights() -> None:
    algo = make_algorithm(FedNova, [0.5, 0.5], 2, 2, local_momentum=0.5)
    plan = Plan(torch.tensor([0, 1]), planned=torch.tensor([1.0, 2.0]))

    step = algo.aggregate(0, torch.zeros(2), plan, DELTAS, lr=0.1)

    # ‖a‖₁ = [τ − m(1 − m^τ)/(1 − m)]/(1 − m): τ = 1 → 1, τ = 2 → (2 − 0.5)/0.5 = 2.5
    # (a = (1.5, 1): the first step's gradient also moves the second through b);
    # τ_eff = 1.75: 1.75·(½·(4, 0)/1 + ½·(0, 2)/2.5) = (3.5, 0.7)
    assert_close(step.direction, torch.tensor([3.5, 0.7]))
