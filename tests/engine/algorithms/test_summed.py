"""`Summed`: a step that is a weighted sum of the deltas, its weights known before the
clients train, by hand; which algorithms give one, and which must not."""

import torch
from torch import Tensor
from torch.testing import assert_close

from tests.engine.contexts import make_algorithm
from worker.engine.algorithms import Algorithm, Plan, Step, Summed
from worker.engine.algorithms.fedavg import FedAvg
from worker.engine.components import current


def test_coefficients_scale_the_weights_and_both_steps_agree_by_hand() -> None:
    summed = Summed(torch.tensor([0.25, 0.75]), torch.tensor([1.0, 2.0]), {"m": 1.0})
    deltas = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    ids = torch.tensor([1, 3])

    from_deltas = summed.step(4, ids, deltas)
    # c = (0.25·1, 0.75·2) = (0.25, 1.5): 0.25·(1, 2) + 1.5·(3, 4) = (4.75, 6.5)
    assert_close(summed.coefficients, torch.tensor([0.25, 1.5]))
    assert from_deltas.direction is not None
    assert_close(from_deltas.direction, torch.tensor([4.75, 6.5]))
    assert_close(from_deltas.weights, torch.tensor([0.25, 0.75]))  # the record's, unscaled
    assert from_deltas.entered is not None and from_deltas.entered.tolist() == [1, 3]
    assert from_deltas.metrics == {"m": 1.0}
    from_sum = summed.step_of_sum(4, ids, torch.tensor([4.75, 6.5]))
    assert from_sum.client_weights() == from_deltas.client_weights()


def test_nobody_trained_is_no_update_and_unsorted_ids_are_scattered() -> None:
    empty = Summed(torch.zeros(0)).step(3, torch.zeros(0, dtype=torch.long), torch.zeros(0, 2))
    assert empty.direction is None and empty.weights.tolist() == [0.0, 0.0, 0.0]

    step = Summed(torch.tensor([0.5, 0.5])).step_of_sum(3, torch.tensor([2, 0]), torch.ones(2))
    assert step.entered is None and step.weights.tolist() == [0.5, 0.0, 0.5]


def test_fedavg_sums_unless_it_waits_and_rescales_partial_work_by_c_over_s() -> None:
    plan = Plan(
        torch.tensor([0, 2]), planned=torch.tensor([4.0, 4.0]), steps=torch.tensor([2.0, 4.0])
    )
    plain = make_algorithm("fedavg", [0.1, 0.2, 0.3, 0.4], dim=2, k=2)
    rescaled = make_algorithm(
        "fedavg", [0.1, 0.2, 0.3, 0.4], 2, 2, ["algorithm.fedavg.rescale_partial=true"]
    )
    waiting = make_algorithm(
        "fedavg", [0.1, 0.2, 0.3, 0.4], 2, 2, ["algorithm.fedavg.wait_for_all=true"]
    )

    a = plain.summed(0, plan)
    assert a is not None and a.scale is None
    assert_close(a.weights, torch.tensor([0.25, 0.75]))  # α renormalised over clients 0 and 2
    r = rescaled.summed(0, plan)
    assert r is not None and r.scale is not None
    assert_close(r.coefficients, torch.tensor([0.25 * 2, 0.75 * 1]))  # C/s = 4/2 and 4/4
    # its step reads earlier rounds' buffer: the loop never trains it into a sum
    assert type(plain).trains_into_sum(plain.params)
    assert not type(waiting).trains_into_sum(waiting.params)
    assert type(plain).trains_into_sum(None)  # declared by a plug-in without the params


def test_a_subclass_with_its_own_aggregate_is_given_the_deltas() -> None:
    class Counted(FedAvg):  # reads each delta: inheriting FedAvg's sum would skip it
        def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
            return super().aggregate(t, w, plan, deltas, lr)

    class Plain(FedAvg):
        pass

    assert Counted.summed is Algorithm.summed
    assert Plain.summed is FedAvg.summed


def test_the_algorithms_whose_step_is_a_weighted_sum_give_one() -> None:
    offering = {e.name for e in current().algorithms if e.component.summed is not Algorithm.summed}
    assert offering == {
        "fedavg",
        "fedprox",
        "fednova",
        "f3ast",
        "unbiased",
        "fedavg_is",
        "adafed",
        "cafed",
    }
