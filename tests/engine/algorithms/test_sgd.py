"""Central SGD by hand: the virtual clients' delta."""

import torch
from torch.testing import assert_close

from tests.engine.contexts import gen, make_algorithm, mask
from worker.engine.algorithms.sgd import CentralSgd

W0 = torch.zeros(2)


def test_central_sgd_applies_the_virtual_clients_delta() -> None:
    algo = make_algorithm(CentralSgd, [0.5, 0.5], dim=1, k=1)

    plan = algo.select(0, torch.ones(1), mask(1, 1), gen())
    step = algo.aggregate(0, torch.ones(1), plan, torch.tensor([[0.5]]), 0.1)

    assert plan.central and len(plan.selected) == 0
    assert step.direction is not None
    assert_close(torch.ones(1) + step.direction, torch.tensor([1.5]))
