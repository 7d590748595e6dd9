"""Runs with a privacy mechanism: the loop noises what the algorithm aggregates, and feeds
the accountant the clients that contributed, as the records show them."""

from functools import cache

import dp_accounting
import numpy as np
import pytest

from worker.engine import ListSink, build_config, simulate

DELTA = 1e-5
BASE = {"rounds": 6, "device": "cpu", "data": {"n_clients": 12}}
CENTRAL = [
    "privacy.kind=central",
    "algorithm.weights=uniform",
    "algorithm.participation=4",
    "privacy.central.noise_multiplier=1.3",
]


def run(*assignments: str) -> ListSink:
    sink = ListSink()
    simulate(build_config(BASE, list(assignments)), sink)
    return sink


@cache
def direct(event: dp_accounting.DpEvent, count: int) -> float:
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(event, count)
    return float(accountant.get_epsilon(DELTA))


def test_a_markov_run_composes_each_client_over_the_rounds_it_joined() -> None:
    sink = run(*CENTRAL, "availability.kind=markov")

    counts = np.zeros(12, dtype=int)
    gaussian = dp_accounting.GaussianDpEvent(1.3)
    for record in sink.records:
        counts[record.selected] += 1
        per_client = [direct(gaussian, int(c)) if c else 0.0 for c in counts]
        m = record.metrics
        assert m["epsilon_client_max"] == pytest.approx(max(per_client), rel=1e-9)
        assert m["epsilon_client_median"] == pytest.approx(np.median(per_client), rel=1e-9)
        assert m["clip_norm"] == 1.0
    assumed = direct(dp_accounting.PoissonSampledDpEvent(4 / 12, gaussian), len(sink.records))
    assert sink.records[-1].metrics["epsilon_assumed"] == pytest.approx(assumed, rel=1e-9)


def test_a_bernoulli_run_amplifies_at_the_clients_availability() -> None:
    sink = run(*CENTRAL, "availability.kind=bernoulli", "availability.bernoulli.p=0.5")

    last = sink.records[-1].metrics
    at_half = direct(
        dp_accounting.PoissonSampledDpEvent(0.5, dp_accounting.GaussianDpEvent(1.3)), 6
    )
    assert last["epsilon_client_max"] == pytest.approx(at_half, rel=1e-9)
    assert last["epsilon_client_median"] == last["epsilon_client_max"]


def test_local_dp_never_amplifies() -> None:
    sink = run(
        "privacy.kind=local",
        "availability.kind=bernoulli",
        "algorithm.name=mifa",
        "algorithm.participation=4",
    )

    counts = np.zeros(12, dtype=int)
    for record in sink.records:
        counts[record.selected] += 1
    gaussian = dp_accounting.GaussianDpEvent(1.0)
    assert sink.records[-1].metrics["epsilon_client_max"] == pytest.approx(
        direct(gaussian, int(counts.max())), rel=1e-9
    )


def test_noise_changes_the_model_and_none_records_no_epsilon() -> None:
    plain = run("algorithm.weights=uniform", "algorithm.participation=4")
    noised = run(*CENTRAL)

    assert "epsilon_assumed" not in plain.records[-1].metrics
    assert plain.records[-1].metrics["test_loss"] != noised.records[-1].metrics["test_loss"]


def test_round_0_keeps_the_rates_it_amplified_at() -> None:
    bernoulli = run(*CENTRAL, "availability.kind=bernoulli", "availability.bernoulli.p=0.5")
    markov = run(*CENTRAL, "availability.kind=markov")

    amplified, composed = bernoulli.records[0].clients, markov.records[0].clients
    assert amplified is not None and amplified.privacy_rate is not None
    assert amplified.privacy_rate.tolist() == [0.5] * 12
    assert composed is not None and composed.privacy_rate is None
    assert bernoulli.records[1].clients is None
