import pytest
import torch
from torch.testing import assert_close

from tests.engine.contexts import aggregate, gen, make_algorithm, mask
from worker.engine.algorithms.fedavg import FedAvg
from worker.engine.algorithms.fedlaavg import FedLaAvg
from worker.engine.algorithms.fedvarp import FedVarp
from worker.engine.algorithms.mifa import Mifa
from worker.engine.algorithms.selection import oldest_first, uniform_sample
from worker.engine.algorithms.sgd import CentralSgd

W0 = torch.zeros(2)


def test_uniform_sample_takes_all_when_few_available() -> None:
    assert uniform_sample(mask(1, 0, 1), 5, gen()).tolist() == [0, 2]
    picked = uniform_sample(mask(1, 1, 1, 1, 0), 2, gen())
    assert len(picked) == 2 and set(picked.tolist()) <= {0, 1, 2, 3}


def test_oldest_first_prefers_never_seen_then_oldest() -> None:
    last = torch.tensor([5.0, float("-inf"), 1.0, 3.0])

    picked = oldest_first(mask(1, 1, 1, 1), last, 2, gen())

    assert picked.tolist() == [1, 2]


def test_oldest_first_breaks_ties_randomly() -> None:
    last = torch.full((4,), float("-inf"))

    picks = {tuple(oldest_first(mask(1, 1, 1, 1), last, 1, gen(s)).tolist()) for s in range(20)}

    assert len(picks) > 1


def test_oldest_first_picks_what_a_stable_sort_of_the_shuffle_picks() -> None:
    # the selection without a full sort draws the same shuffle and keeps the same
    # clients as sorting it stably: the ones below the k-th key, then the earliest ties
    for seed in range(50):
        g = torch.Generator().manual_seed(seed)
        last = torch.randint(-1, 4, (40,), generator=g).float()
        last[last < 0] = float("-inf")
        available = torch.rand(40, generator=g) < 0.7
        k = int(torch.randint(1, 30, (1,), generator=g))
        ids = available.nonzero().flatten()
        shuffled = ids[torch.randperm(len(ids), generator=gen(seed))]
        order = torch.argsort(last[shuffled], stable=True)
        expected = shuffled[order[:k]].sort().values

        assert oldest_first(available, last, k, gen(seed)).tolist() == expected.tolist()


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

    trained = algo.select(1, W0, only_first, gen()).selected
    held = aggregate(algo, 1, W0, trained, torch.tensor([[2.0, 0.0]]), lr=0.1)
    only_second = torch.zeros(4, dtype=torch.bool)
    only_second[second] = True
    trained2 = algo.select(2, W0, only_second, gen()).selected
    done = aggregate(algo, 2, W0, trained2, torch.tensor([[0.0, 4.0]]), lr=0.1)

    assert len(nobody) == 0 and len(sample) == 2
    assert trained.tolist() == [first] and trained2.tolist() == [second]
    assert_close(held.w, W0)
    assert_close(done.w, torch.tensor([1.0, 2.0]))


def test_fedlaavg_memory_by_hand_with_lr_decay() -> None:
    algo = make_algorithm(FedLaAvg, [1 / 3] * 3, dim=2, k=1)

    s0 = aggregate(algo, 0, W0, torch.tensor([0]), torch.tensor([[3.0, 0.0]]), lr=0.1)
    s1 = aggregate(algo, 1, s0.w, torch.tensor([1]), torch.tensor([[0.0, 0.6]]), lr=0.05)

    # G0 = [30, 0]; Ḡ = [10, 0]; w1 = 0.1·Ḡ = [1, 0]
    assert_close(s0.w, torch.tensor([1.0, 0.0]))
    # G1 = [0, 12]; Ḡ = [10, 4]; w2 = w1 + 0.05·Ḡ = [1.5, 0.2]
    assert_close(s1.w, torch.tensor([1.5, 0.2]))
    assert_close(s1.weights, torch.tensor([1 / 3, 1 / 3, 0.0]))
    assert algo.last.tolist() == [0.0, 1.0, float("-inf")]


def test_fedlaavg_replaces_a_clients_old_update() -> None:
    algo = make_algorithm(FedLaAvg, [0.5, 0.5], dim=1, k=1)
    aggregate(algo, 0, torch.zeros(1), torch.tensor([0]), torch.tensor([[2.0]]), lr=1.0)

    step = aggregate(algo, 1, torch.zeros(1), torch.tensor([0]), torch.tensor([[-4.0]]), lr=1.0)

    # Ḡ = 0.5·(-4) = -2 (the first update of client 0 is gone)
    assert_close(step.w, torch.tensor([-2.0]))


def test_mifa_wait_all_skips_until_everyone_reported() -> None:
    algo = make_algorithm(
        Mifa, [0.5, 0.5], dim=1, k=2, assignments=["algorithm.mifa.init=wait_all"]
    )

    held = aggregate(algo, 0, torch.zeros(1), torch.tensor([0]), torch.tensor([[2.0]]), lr=1.0)
    moved = aggregate(algo, 1, held.w, torch.tensor([1]), torch.tensor([[4.0]]), lr=1.0)

    assert_close(held.w, torch.zeros(1))
    assert_close(moved.w, torch.tensor([3.0]))


def test_mifa_zero_init_averages_over_all_clients() -> None:
    algo = make_algorithm(Mifa, [0.5, 0.5], dim=1, k=2)

    step = aggregate(algo, 0, torch.zeros(1), torch.tensor([0]), torch.tensor([[2.0]]), lr=1.0)

    assert_close(step.w, torch.tensor([1.0]))


def test_fedvarp_by_hand() -> None:
    algo = make_algorithm(FedVarp, [0.5, 0.5], dim=1, k=1)
    s0 = aggregate(algo, 0, torch.zeros(1), torch.tensor([0]), torch.tensor([[2.0]]), lr=1.0)

    s1 = aggregate(algo, 1, s0.w, torch.tensor([1]), torch.tensor([[4.0]]), lr=1.0)

    # round 0: y = 0, v = 0 + (2 − 0) = 2
    assert_close(s0.w, torch.tensor([2.0]))
    # round 1: ȳ = (2 + 0)/2 = 1, v = 1 + (4 − 0) = 5
    assert_close(s1.w, torch.tensor([7.0]))
    assert_close(s1.weights, torch.tensor([0.5, 1.0]))


def test_central_sgd_applies_the_virtual_clients_delta() -> None:
    algo = make_algorithm(CentralSgd, [0.5, 0.5], dim=1, k=1)

    plan = algo.select(0, torch.ones(1), mask(1, 1), gen())
    step = algo.aggregate(0, torch.ones(1), plan, torch.tensor([[0.5]]), 0.1)

    assert plan.central and len(plan.selected) == 0
    assert step.direction is not None
    assert_close(torch.ones(1) + step.direction, torch.tensor([1.5]))


@pytest.mark.parametrize("cls", [FedLaAvg, Mifa, FedVarp])
def test_memory_methods_report_the_share_of_clients_with_an_update(cls: type) -> None:
    algo = make_algorithm(cls, [0.25] * 4, dim=1, k=1)
    one = torch.ones(1, 1)

    shares = [
        aggregate(algo, t, torch.zeros(1), torch.tensor(ids), one[: len(ids)], 1.0).metrics
        for t, ids in enumerate([[2], [2], [0]])
    ]

    # client 2 reports twice (one stored update), then client 0: 1/4, 1/4, 2/4
    assert shares == [{"memory_filled": 0.25}, {"memory_filled": 0.25}, {"memory_filled": 0.5}]


def test_mifa_reports_the_memory_share_while_it_waits() -> None:
    algo = make_algorithm(
        Mifa, [0.5, 0.5], dim=1, k=2, assignments=["algorithm.mifa.init=wait_all"]
    )

    held = aggregate(algo, 0, torch.zeros(1), torch.tensor([0]), torch.tensor([[2.0]]), lr=1.0)

    assert held.metrics == {"memory_filled": 0.5}
