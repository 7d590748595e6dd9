"""Client selection by hand: uniform sampling and oldest-first."""

import torch

from tests.engine.contexts import gen, mask
from worker.engine.algorithms.selection import (
    PERMUTED_UP_TO,
    _never_seen_drawn,
    floyd,
    oldest_first,
    skipping,
    uniform_sample,
)
from worker.engine.masks import Available

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

        assert (
            oldest_first(Available.of(available), last, k, gen(seed)).tolist() == expected.tolist()
        )


def test_floyd_by_hand() -> None:
    # m = 5, k = 3. j = 2: ⌊0.5·3⌋ = 1; j = 3: ⌊0.3·4⌋ = 1, taken, so 3; j = 4: ⌊0.1·5⌋ = 0.
    u = torch.tensor([0.5, 0.3, 0.1], dtype=torch.float64)

    assert floyd(5, u).tolist() == [1, 3, 0]


def test_a_large_population_is_sampled_uniformly_without_replacement() -> None:
    # 300 000 available of 400 000 (above the permuted range): 2 000 samples of 100;
    # each of 10 blocks of 30 000 available clients should get 20 000 ± 5σ picks.
    available = torch.ones(400_000, dtype=torch.bool)
    available[::4] = False
    assert int(available.sum()) > PERMUTED_UP_TO
    counts = torch.zeros(10)
    for seed in range(2_000):
        picked = uniform_sample(Available.of(available), 100, gen(seed))
        assert len(picked) == 100 == len(picked.unique()) and bool(available[picked].all())
        rank = torch.searchsorted(available.nonzero().flatten(), picked)
        counts += torch.bincount(rank // 30_000, minlength=10)
    sigma = (200_000 * 0.1 * 0.9) ** 0.5
    assert (counts - 20_000).abs().max() < 5 * sigma


def test_oldest_first_in_a_large_population() -> None:
    # Everyone available; clients 7 and 9 never seen, ten more at round 0, the rest
    # later: k = 5 takes 7, 9 and three of the ten, drawn uniformly.
    n = PERMUTED_UP_TO + 1
    last = torch.full((n,), 5.0)
    last[[7, 9]] = float("-inf")
    ten = torch.arange(100, 110)
    last[ten] = 0.0
    available = torch.ones(n, dtype=torch.bool)
    seen: set[int] = set()
    for seed in range(40):
        picked = oldest_first(Available.of(available), last, 5, gen(seed)).tolist()
        assert picked[:2] == [7, 9] and set(picked[2:]) <= set(ten.tolist())
        seen |= set(picked[2:])
    assert seen == set(ten.tolist())


def test_skipping_by_hand() -> None:
    # positions 0..6 less 1, 2 and 5 are 0, 3, 4, 6: ranks 0..3 land there
    taken = torch.tensor([1, 2, 5])

    assert skipping(taken, torch.tensor([0, 1, 2, 3])).tolist() == [0, 3, 4, 6]
    assert skipping(torch.zeros(0, dtype=torch.long), torch.tensor([2])).tolist() == [2]


def test_oldest_first_from_the_seen_clients_draws_what_the_keys_draw() -> None:
    # many candidates, some seen (a finite last round), ten of those unavailable: told
    # the seen clients, the selection picks what it picks from every candidate's key,
    # with m never seen above k (drawn by Floyd, or by a permutation of m ≤ 10⁵), equal
    # to k, and below it (then from the keys)
    n = PERMUTED_UP_TO + 500
    cases = [(300, 100), (n - 300, 100), (n - 300, 300), (n - 300, 400)]
    for seed, (n_seen, k) in enumerate(cases):
        g = torch.Generator().manual_seed(seed)
        seen = torch.randperm(n, generator=g)[:n_seen].sort().values
        last = torch.full((n,), float("-inf"))
        last[seen] = torch.randint(0, 5, (n_seen,), generator=g).float()
        available = torch.ones(n, dtype=torch.bool)
        available[seen[:10]] = False
        clients = Available.of(available)

        with_seen = oldest_first(clients, last, k, gen(seed), seen)

        assert with_seen.tolist() == oldest_first(clients, last, k, gen(seed)).tolist()
        drawn = _never_seen_drawn(clients, seen, k, gen(seed))
        assert (drawn is None) == (n - n_seen < k)  # the keys only where too few
