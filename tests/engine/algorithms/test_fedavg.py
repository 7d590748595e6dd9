"""FedAvg by hand: renormalised weights over the sample, and waiting for all."""

import torch
from torch.testing import assert_close

from tests.engine.contexts import aggregate, gen, make_algorithm, mask
from worker.engine.algorithms.fedavg import FedAvg
from worker.engine.masks import Available

W0 = torch.zeros(2)


def test_fedavg_renormalises_alpha_over_the_sample() -> None:
    algo = make_algorithm(FedAvg, [0.5, 0.25, 0.25], dim=2, k=3)
    deltas = torch.tensor([[1.0, 0.0], [0.0, 1.0]])

    step = aggregate(algo, 0, W0, torch.tensor([0, 2]), deltas, lr=0.1)

    # α̃ = (0.5, 0.25) / 0.75 = (2/3, 1/3)
    assert_close(step.w, torch.tensor([2 / 3, 1 / 3]))
    assert_close(step.weights, torch.tensor([2 / 3, 0.0, 1 / 3]))


def test_fedavg_wait_for_all_holds_the_model_until_the_sample_reported() -> None:
    algo = make_algorithm(
        FedAvg, [0.25] * 4, dim=2, k=2, assignments=["algorithm.fedavg.wait_for_all=true"]
    )

    nobody = algo.select(0, W0, mask(0, 0, 0, 0), gen()).selected
    sample = algo.pending
    first, second = int(sample[0]), int(sample[1])
    only_first = torch.zeros(4, dtype=torch.bool)
    only_first[first] = True

    trained = algo.select(1, W0, Available.of(only_first), gen()).selected
    held = aggregate(algo, 1, W0, trained, torch.tensor([[2.0, 0.0]]), lr=0.1)
    only_second = torch.zeros(4, dtype=torch.bool)
    only_second[second] = True
    trained2 = algo.select(2, W0, Available.of(only_second), gen()).selected
    done = aggregate(algo, 2, W0, trained2, torch.tensor([[0.0, 4.0]]), lr=0.1)

    assert len(nobody) == 0 and len(sample) == 2
    assert trained.tolist() == [first] and trained2.tolist() == [second]
    assert_close(held.w, W0)
    assert_close(done.w, torch.tensor([1.0, 2.0]))
