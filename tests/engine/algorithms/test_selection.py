"""Client selection by hand: uniform sampling and oldest-first."""

import torch

from tests.engine.contexts import gen, mask
from worker.engine.algorithms.selection import oldest_first, uniform_sample

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
