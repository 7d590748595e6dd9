"""The histogram of per-client ε: each client's ε as dp-accounting gives it for its own
count (or rate), binned; one bin when all clients share one ε; exact worst and median
clients when ε is interpolated between order statistics."""

from functools import cache

import dp_accounting
import numpy as np
import pytest

from worker.engine.privacy.accountant import client_epsilon
from worker.engine.privacy.client_epsilons import EXACT_COUNTS, epsilon_histogram

SIGMA, DELTA = 1.3, 1e-5
GAUSSIAN = dp_accounting.GaussianDpEvent(SIGMA)


@cache
def direct(count: int, rate: float = 1.0) -> float:
    if count == 0:
        return 0.0
    event = GAUSSIAN if rate == 1 else dp_accounting.PoissonSampledDpEvent(rate, GAUSSIAN)
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(event, count)
    return float(accountant.get_epsilon(DELTA))


def test_three_clients_by_their_counts() -> None:
    h = epsilon_histogram(SIGMA, DELTA, rounds=5, rates=None, counts=np.array([1, 4, 2]), bins=3)

    low, top = direct(1), direct(4)
    assert h.maximum == pytest.approx(top, rel=1e-9)
    assert h.median == pytest.approx(direct(2), rel=1e-9)
    np.testing.assert_allclose(h.edges, np.linspace(low, top, 4), rtol=1e-9)
    # ε(2) lies in the middle third of [ε(1), ε(4)] (0.39 of the way), ε(4) closes the last
    assert 1 / 3 < (direct(2) - low) / (top - low) < 2 / 3
    assert h.counts == [1, 1, 1]
    assert h.exact


def test_two_clients_amplified_at_their_rates_over_every_round() -> None:
    h = epsilon_histogram(
        SIGMA, DELTA, rounds=20, rates=np.array([0.5, 0.2]), counts=np.array([3, 9])
    )

    assert h.maximum == pytest.approx(direct(20, 0.5), rel=1e-9)
    assert h.median == pytest.approx((direct(20, 0.2) + direct(20, 0.5)) / 2, rel=1e-9)
    assert h.edges[0] == pytest.approx(direct(20, 0.2), rel=1e-9)
    assert (len(h.edges), sum(h.counts), h.counts[0], h.counts[-1]) == (31, 2, 1, 1)


def test_clients_that_share_one_epsilon_make_one_bin() -> None:
    h = epsilon_histogram(SIGMA, DELTA, rounds=8, rates=np.full(1000, 0.25), counts=np.zeros(1000))

    eps = direct(8, 0.25)
    assert h.edges == pytest.approx([eps, eps], rel=1e-9)
    assert (h.counts, h.exact) == ([1000], True)
    assert h.maximum == h.median == h.edges[0]


def test_one_client() -> None:
    h = epsilon_histogram(SIGMA, DELTA, rounds=3, rates=None, counts=np.array([3]))

    assert h.counts == [1]
    assert h.maximum == h.median == pytest.approx(direct(3), rel=1e-9)


def test_a_client_that_never_contributed_has_epsilon_zero() -> None:
    h = epsilon_histogram(SIGMA, DELTA, rounds=3, rates=None, counts=np.array([0, 0, 3]), bins=2)

    assert h.edges[0] == 0.0
    assert (h.counts, h.median) == ([2, 1], 0.0)


def test_many_distinct_counts_interpolate_between_exact_order_statistics() -> None:
    counts = np.random.default_rng(0).integers(0, 5000, size=20_001)
    assert len(np.unique(counts)) > EXACT_COUNTS

    h = epsilon_histogram(SIGMA, DELTA, rounds=5000, rates=None, counts=counts)

    assert not h.exact
    assert sum(h.counts) == 20_001
    assert h.maximum == pytest.approx(direct(int(counts.max())), rel=1e-9)
    assert h.median == pytest.approx(direct(int(np.median(counts))), rel=1e-9)
    assert h.edges[0] == pytest.approx(direct(int(counts.min())), rel=1e-9)
    # against each client's ε computed exactly: no bin misses by more than 1 % of them
    distinct, index = np.unique(counts, return_inverse=True)
    each = np.array([client_epsilon(SIGMA, DELTA, int(c)) for c in distinct])[index]
    truth, _ = np.histogram(each, bins=np.asarray(h.edges))
    assert np.abs(truth - np.asarray(h.counts)).max() <= 0.01 * len(counts)


def test_many_distinct_rates_keep_the_worst_and_median_clients_exact() -> None:
    rates = np.random.default_rng(1).uniform(0.05, 0.3, size=501)

    h = epsilon_histogram(SIGMA, DELTA, rounds=40, rates=rates, counts=np.zeros(501))

    assert not h.exact
    assert sum(h.counts) == 501
    assert h.maximum == pytest.approx(direct(40, float(rates.max())), rel=1e-9)
    assert h.median == pytest.approx(direct(40, float(np.median(rates))), rel=1e-9)
    assert h.edges[0] == pytest.approx(direct(40, float(rates.min())), rel=1e-9)
