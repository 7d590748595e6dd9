"""The accountant's figures against dp-accounting called directly on the same events,
one published figure, and the amplified ε of a Bernoulli client placed by construction."""

import math

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import pld_privacy_accountant

from worker.engine.privacy.accountant import ORDERS, Accountant, epsilon, round_rdp

DELTA = 1e-5
SIGMA = 1.1


def direct(event: dp_accounting.DpEvent, count: int) -> float:
    """ε of `count` times `event`, as dp-accounting computes it unaided."""
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(event, count)
    return float(accountant.get_epsilon(DELTA))


GAUSSIAN = dp_accounting.GaussianDpEvent(SIGMA)


def test_unamplified_figures_match_dp_accounting_round_by_round() -> None:
    # 10 clients, K = 3; client 0 contributes to rounds 0-3, clients 1-8 once or twice,
    # client 9 never
    rounds = [[0, 1, 2], [0, 3, 4], [0, 1, 5], [0], [6, 7, 8]]
    acc = Accountant(SIGMA, DELTA, n=10, k=3, rates=None)
    counts = np.zeros(10, dtype=int)
    for t, ids in enumerate(rounds, start=1):
        got = acc.observe(np.array(ids))
        counts[ids] += 1
        per_client = sorted(direct(GAUSSIAN, int(c)) if c else 0.0 for c in counts)

        assumed = direct(dp_accounting.PoissonSampledDpEvent(0.3, GAUSSIAN), t)
        assert got["epsilon_assumed"] == pytest.approx(assumed, rel=1e-9)
        assert got["epsilon_client_max"] == pytest.approx(per_client[-1], rel=1e-9)
        assert got["epsilon_client_median"] == pytest.approx(np.median(per_client), rel=1e-9)
    # after round 5: counts 4, 2, 1 ×7, 0: the median client contributed once
    assert got["epsilon_client_median"] == pytest.approx(direct(GAUSSIAN, 1), rel=1e-9)


def test_a_client_that_sends_twice_in_one_update_counts_twice() -> None:
    acc = Accountant(SIGMA, DELTA, n=3, k=2, rates=None)

    got = acc.observe(np.array([1, 1]))

    assert got["epsilon_client_max"] == pytest.approx(direct(GAUSSIAN, 2), rel=1e-9)
    assert got["epsilon_client_median"] == 0.0


def test_amplified_figures_match_dp_accounting() -> None:
    rates = np.array([0.8, 0.2, 0.6, 0.4])
    acc = Accountant(SIGMA, DELTA, n=4, k=1, rates=rates)
    for _ in range(6):
        got = acc.observe(np.array([0]))

    def at(q: float) -> float:
        return direct(dp_accounting.PoissonSampledDpEvent(q, GAUSSIAN), 6)

    assert got["epsilon_client_max"] == pytest.approx(at(0.8), rel=1e-9)
    assert got["epsilon_client_median"] == pytest.approx((at(0.4) + at(0.6)) / 2, rel=1e-9)
    assert got["epsilon_assumed"] == pytest.approx(at(0.25), rel=1e-9)


def test_a_bernoulli_clients_amplified_epsilon_lies_between_assumed_and_unamplified() -> None:
    # By construction: K/N = 0.1 < π = 0.5 < 1, and ε grows with the sampling rate, so
    # over the same 50 rounds assumed < amplified < unamplified (every round, no sampling).
    acc = Accountant(SIGMA, DELTA, n=10, k=1, rates=np.full(10, 0.5))
    for _ in range(50):
        got = acc.observe(np.array([0]))
    unamplified = direct(GAUSSIAN, 50)

    assert got["epsilon_assumed"] < got["epsilon_client_max"] < unamplified
    assert got["epsilon_client_max"] == got["epsilon_client_median"]


def test_pld_is_at_least_as_tight_as_the_reported_rdp() -> None:
    # PLD accounts the same events exactly (up to discretisation): never above RDP
    event = dp_accounting.PoissonSampledDpEvent(0.1, GAUSSIAN)
    pld = pld_privacy_accountant.PLDAccountant()
    pld.compose(event, 20)

    assert pld.get_epsilon(DELTA) <= epsilon(round_rdp(SIGMA, 0.1), 20, DELTA)


@pytest.mark.parametrize(("sigma", "epochs", "published"), [(1.12, 60, 2.92), (1.2, 10, 1.20)])
def test_tf_privacy_mnist_tutorial_figures(sigma: float, epochs: int, published: float) -> None:
    # TensorFlow Privacy, tutorials/README.md, "Select Parameters": DP-SGD on MNIST,
    # 60 000 examples, batch 256, δ = 1e-5. Those figures convert RDP with Mironov's
    # bound ε = min_α RDP(α) − log δ/(α − 1) (2017, Prop. 3); dp-accounting now uses the
    # tighter one of Canonne et al. (2020), so the accountant reports less.
    steps = epochs * 60_000 // 256
    rdp = steps * round_rdp(sigma, 256 / 60_000)
    classic = float(np.min(rdp - math.log(DELTA) / (ORDERS - 1)))

    assert round(classic, 2) == published
    assert epsilon(round_rdp(sigma, 256 / 60_000), steps, DELTA) < classic


def test_resumed_accountant_continues_where_it_stopped() -> None:
    rounds = [np.array([0, 1]), np.array([1, 2]), np.array([1])]
    straight = Accountant(SIGMA, DELTA, n=4, k=2, rates=None)
    first = Accountant(SIGMA, DELTA, n=4, k=2, rates=None)
    expected = [straight.observe(ids) for ids in rounds]
    first.observe(rounds[0])
    resumed = Accountant(SIGMA, DELTA, n=4, k=2, rates=None)
    resumed.load_state_dict(first.state_dict())

    assert [resumed.observe(ids) for ids in rounds[1:]] == expected[1:]
