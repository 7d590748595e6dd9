import pytest
import torch
from torch.testing import assert_close

from worker.engine import ConfigError, build_config
from worker.engine.availability.base import Always, AvailabilityFacts
from worker.engine.availability.bernoulli import Bernoulli, BernoulliParams, bernoulli_probabilities
from worker.engine.availability.diurnal import Diurnal, DiurnalParams, diurnal_from_config
from worker.engine.availability.markov import Markov, MarkovParams, cafed_population
from worker.engine.data import load_data
from worker.engine.data.population import Population
from worker.engine.loop import build_availability


def masks(model: object, rounds: int) -> torch.Tensor:
    return torch.stack([model.mask(t) for t in range(rounds)])  # type: ignore[attr-defined]


def test_always_everyone_present() -> None:
    model = Always(3)

    assert masks(model, 4).all()
    assert_close(model.pi, torch.ones(3, dtype=torch.float64))


def test_bernoulli_by_class_probabilities_by_hand() -> None:
    client_class = torch.tensor([0, 3, 9])

    p = bernoulli_probabilities(BernoulliParams(profile="by_class", p_min=0.1), client_class, 10, 0)

    # p_k = 0.1 + 0.9 * class / 9
    assert_close(p, torch.tensor([0.1, 0.4, 1.0], dtype=torch.float64))


def test_bernoulli_uniform_profile_stays_in_range_and_is_seeded() -> None:
    cfg = BernoulliParams(profile="uniform", p_min=0.5)
    classes = torch.zeros(1000, dtype=torch.long)

    p = bernoulli_probabilities(cfg, classes, 10, seed=3)

    assert float(p.min()) >= 0.5 and float(p.max()) <= 1.0
    assert_close(p, bernoulli_probabilities(cfg, classes, 10, seed=3))
    assert abs(float(p.mean()) - 0.75) < 0.03


def test_bernoulli_frequencies_match_p() -> None:
    model = Bernoulli(torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64), seed=1)

    freq = masks(model, 4000).double().mean(dim=0)

    assert_close(freq, model.pi, atol=0.03, rtol=0)


def test_diurnal_number_strategy_by_hand() -> None:
    cfg = DiurnalParams(strategy="number", period=2, classes_in_group0=1)
    model = diurnal_from_config(cfg, torch.tensor([0, 1, 0, 2]), 10)

    expected = torch.tensor(
        [[1, 0, 1, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 1, 0, 1], [1, 0, 1, 0]], dtype=torch.bool
    )
    assert torch.equal(masks(model, 5), expected)
    assert_close(model.pi, torch.full((4,), 0.5, dtype=torch.float64))


def test_diurnal_ratio_strategy_example1() -> None:
    cfg = DiurnalParams(strategy="ratio", period=30, ratio=1 / 3)
    model = diurnal_from_config(cfg, torch.tensor([0, 1]), 2)

    m = masks(model, 80)

    assert isinstance(model, Diurnal) and (model.e0, model.e1) == (30, 10)
    assert m[:30, 0].all() and not m[:30, 1].any()
    assert m[30:40, 1].all() and not m[30:40, 0].any()
    assert m[40:70, 0].all()
    assert_close(model.pi, torch.tensor([0.75, 0.25], dtype=torch.float64))


def test_cafed_population_by_hand() -> None:
    pi, lam = cafed_population(MarkovParams(g=0.4, nu=0.9, correlated_share=0.5), 8)

    assert_close(pi, torch.tensor([0.9] * 4 + [0.1] * 4, dtype=torch.float64))
    assert_close(lam, torch.tensor([0.9, 0.9, 0, 0, 0.9, 0.9, 0, 0], dtype=torch.float64))


def test_markov_stationary_share_and_correlation() -> None:
    pi = torch.tensor([0.1, 0.9, 0.5, 0.5], dtype=torch.float64)
    lam = torch.tensor([0.9, 0.0, 0.8, 0.0], dtype=torch.float64)
    model = Markov(pi, lam, seed=2)

    m = masks(model, 20_000).double()
    share = m.mean(dim=0)
    centred = m - share
    lag1 = (centred[1:] * centred[:-1]).mean(dim=0) / centred.var(dim=0, unbiased=False)

    assert_close(share, pi, atol=0.04, rtol=0)
    assert_close(lag1, lam, atol=0.05, rtol=0)


def test_markov_resumes_from_state() -> None:
    pi, lam = cafed_population(MarkovParams(), 10)
    straight = masks(Markov(pi, lam, seed=5), 30)
    first = Markov(pi, lam, seed=5)
    head = masks(first, 15)
    second = Markov(pi, lam, seed=5)
    second.load_state_dict(first.state_dict())

    tail = torch.stack([second.mask(t) for t in range(15, 30)])

    assert torch.equal(torch.cat([head, tail]), straight)


def test_markov_dataset_population_by_hand() -> None:
    population = Population(
        torch.tensor([0.1, 0.9], dtype=torch.float64),
        torch.tensor([0.9, 0.005], dtype=torch.float64),
    )
    facts = AvailabilityFacts(2, torch.zeros(2, dtype=torch.long), 2, 3, population)

    model = Markov.from_params(MarkovParams(population="dataset"), facts)

    assert model.lam is not None
    assert_close(model.pi, population.pi)
    assert_close(model.lam, population.lam)


def test_markov_dataset_population_without_one_names_the_field() -> None:
    facts = AvailabilityFacts(2, torch.zeros(2, dtype=torch.long), 2, 3)

    with pytest.raises(ConfigError, match=r"^availability\.markov\.population: "):
        Markov.from_params(MarkovParams(population="dataset"), facts)
    with pytest.raises(ConfigError, match=r"availability\.markov\.population: .*'mean_estimation'"):
        build_config(
            {"data": {"dataset": "mean_estimation", "n_clients": 4}, "model": {"name": "scalar"}},
            [
                "algorithm.participation=2",
                "availability.kind=markov",
                "availability.markov.population=dataset",
            ],
        )


def test_markov_follows_the_datasets_population() -> None:
    config = build_config(
        {"data": {"seed": 42}},
        ["availability.kind=markov", "availability.markov.population=dataset"],
    )
    data = load_data(config.data, config.seed)
    assert data.population is not None
    pi, lam = data.population.pi, data.population.lam

    m = masks(build_availability(config, data), 20_000).double()

    share = m.mean(dim=0)
    centred = m - share
    lag1 = (centred[1:] * centred[:-1]).mean(dim=0) / centred.var(dim=0, unbiased=False)
    stable = lam == 0.9
    assert int(stable.sum()) == 6
    assert_close(share, pi, atol=0.04, rtol=0)
    assert_close(lag1[stable], lam[stable], atol=0.05, rtol=0)
    assert_close(lag1[~stable], lam[~stable], atol=0.05, rtol=0)
