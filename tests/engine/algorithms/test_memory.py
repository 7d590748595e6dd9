"""The memory methods by hand (FedLaAvg, MIFA, FedVARP) and the share of clients they
hold an update of."""

import pytest
import torch
from torch.testing import assert_close

from tests.engine.contexts import aggregate, make_algorithm
from worker.engine.algorithms.fedlaavg import FedLaAvg
from worker.engine.algorithms.fedvarp import FedVarp
from worker.engine.algorithms.memory import ClientMemory
from worker.engine.algorithms.mifa import Mifa

W0 = torch.zeros(2)


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


def test_client_memory_keeps_the_clients_it_holds() -> None:
    # writes for clients 2, 0, then 0, 3: it holds 0, 2, 3 (ascending) and counts 3 of
    # 4; a memory loaded from its tensors holds the same
    memory = ClientMemory(4, 1, torch.device("cpu"))
    memory.write(torch.tensor([2, 0]), torch.ones(2, 1), lr=1.0)
    memory.write(torch.tensor([0, 3]), torch.ones(2, 1), lr=1.0)
    loaded = ClientMemory(4, 1, torch.device("cpu"))
    loaded.load(memory.tensors())

    for m in (memory, loaded):
        assert m.ids.tolist() == [0, 2, 3]
        assert m.filled_share() == {"memory_filled": 0.75}


def test_filled_share_is_the_float32_mean_of_filled() -> None:
    # the share from the count is the figure the mean over N gave, to the bit
    g = torch.Generator().manual_seed(0)
    for n in (3, 7, 999, 100_003):
        memory = ClientMemory(n, 1, torch.device("cpu"))
        for _ in range(5):
            ids = torch.randperm(n, generator=g)[: max(1, n // 7)].sort().values
            memory.write(ids, torch.ones(len(ids), 1), lr=1.0)
            share = float(memory.filled.float().mean())
            assert memory.filled_share()["memory_filled"] == share
