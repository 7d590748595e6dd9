import numpy as np
import pytest
import torch
from torch.testing import assert_close

from worker.engine import ConfigError, build_config
from worker.engine.availability.base import Always, AvailabilityContext
from worker.engine.availability.bernoulli import (
    Bernoulli,
    BernoulliParams,
    SplitThresholds,
    bernoulli_probabilities,
    float32_ceiling,
    present_words,
    word_thresholds,
)
from worker.engine.availability.diurnal import Diurnal, DiurnalParams, diurnal_from_config
from worker.engine.availability.markov import Markov, MarkovParams, cafed_population
from worker.engine.data import load_data
from worker.engine.data.population import Population
from worker.engine.loop import build_availability
from worker.engine.rng import KEPT_STREAMS_UP_TO, numpy_gen, torch_gen


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


def test_float32_ceiling_by_hand() -> None:
    # 0.7 rounds down in float32 (0.699999988…), so its ceiling is the next float32 up;
    # 0.1 rounds up (0.100000001…) and 0.5, 1 are exact: each is its own ceiling
    p = torch.tensor([0.7, 0.1, 0.5, 1.0], dtype=torch.float64)
    below_07 = torch.tensor(0.7, dtype=torch.float32)

    ceiling = float32_ceiling(p)

    assert float(below_07) < 0.7
    up = torch.nextafter(below_07, torch.tensor(1.0))
    assert ceiling.tolist() == [float(up), float(p[1].float()), 0.5, 1.0]
    assert bool(below_07 < ceiling[0]) and not bool(below_07 < p[0].float())


def test_float32_ceiling_compares_as_float64_does() -> None:
    # u < p in float64 and u < ceiling in float32 agree on random p, at the float32
    # numbers on either side of each p and at random u
    p = torch.rand(10_000, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    near = p.float()
    us = [
        near,
        torch.nextafter(near, torch.tensor(0.0)),
        torch.nextafter(near, torch.tensor(1.0)),
        torch.rand(10_000, generator=torch.Generator().manual_seed(3)),
    ]

    for u in us:
        assert torch.equal(u < float32_ceiling(p), u.double() < p)


def test_bernoulli_keeps_its_stream_up_to_the_kept_population() -> None:
    # the draw every run recorded: u ~ U[0, 1) float32 from (seed, "availability", t),
    # u < p in float64
    p = bernoulli_probabilities(
        BernoulliParams(profile="uniform"), torch.zeros(KEPT_STREAMS_UP_TO, dtype=torch.long), 10, 4
    )
    model = Bernoulli(p, seed=4)

    for t in (0, 7):
        u = torch.rand(KEPT_STREAMS_UP_TO, generator=torch_gen(4, "availability", t))
        assert torch.equal(model.mask(t), u.double() < p)


def test_word_thresholds_by_hand() -> None:
    # ⌈p·2³²⌉ − 1: ½ → 2³¹ − 1, ¼ → 2³⁰ − 1, 1 → 2³² − 1 (always), 10⁻¹² → 0 (one word
    # in 2³²), 0.3 → ⌈1288490188.8⌉ − 1 = 1288490188
    p = torch.tensor([0.5, 0.25, 1.0, 1e-12, 0.3], dtype=torch.float64)

    assert word_thresholds(p).tolist() == [2**31 - 1, 2**30 - 1, 2**32 - 1, 0, 1288490188]
    same = word_thresholds(torch.full((3,), 0.5, dtype=torch.float64))
    assert same.shape == () and same.dtype == np.uint32 and int(same) == 2**31 - 1


def test_split_thresholds_by_hand() -> None:
    # 0x12345678 → top byte 0x12, rest 0x345678; a shared threshold stays one number
    split = SplitThresholds.of(np.array([0x12345678, 0xFFFFFFFF, 0], dtype=np.uint32))

    assert split.top.tolist() == [0x12, 0xFF, 0] and split.rest.tolist() == [0x345678, 0xFFFFFF, 0]
    assert split.top.dtype == np.uint8
    shared = SplitThresholds.of(word_thresholds(torch.full((3,), 0.5, dtype=torch.float64)))
    assert (int(shared.top), int(shared.rest), shared.top.ndim) == (0x7F, 0xFFFFFF, 0)


def test_present_words_by_hand() -> None:
    # the bytes of the first raw output, low first, are b_0 … b_7 (n = 6 reads b_0 … b_5).
    # Thresholds: client 0 below its byte (absent), 1 above it (present), 2 to 5 tied on
    # the byte, which take raw outputs 2, 3, 4, 5 in turn; their low 24 bits r decide:
    # client 2 rest r (present, r ≤ r), 3 rest r − 1 (absent), 4 rest 0xFFFFFF
    # (present), 5 rest r − 1 (absent)
    raw = np.random.default_rng(9).bit_generator.random_raw(5).tolist()
    byte = [(raw[0] >> (8 * k)) & 0xFF for k in range(6)]
    low = [r & 0xFFFFFF for r in raw[1:]]
    assert byte[0] > 0 and byte[1] < 0xFF and all(r > 0 for r in low)
    below = [
        (byte[0] - 1) << 24 | 0xFFFFFF,
        (byte[1] + 1) << 24,
        byte[2] << 24 | low[0],
        byte[3] << 24 | (low[1] - 1),
        byte[4] << 24 | 0xFFFFFF,
        byte[5] << 24 | (low[3] - 1),
    ]

    split = SplitThresholds.of(np.array(below, dtype=np.uint32))
    present = present_words(np.random.default_rng(9), split, 6)

    assert present.tolist() == [False, True, True, False, True, False]


def test_bernoulli_above_the_kept_population_draws_words() -> None:
    # client k is present where its word from (seed, "availability", t) is at most
    # ⌈p_k·2³²⌉ − 1
    n = KEPT_STREAMS_UP_TO + 1
    p = torch.full((n,), 0.25, dtype=torch.float64)
    model = Bernoulli(p, seed=5)

    split = SplitThresholds.of(np.array(2**30 - 1, dtype=np.uint32))
    expected = present_words(numpy_gen(5, "availability", 3), split, n)

    assert torch.equal(model.mask(3), torch.from_numpy(expected))


def test_present_words_are_present_with_the_thresholds_probability() -> None:
    # one client in 256 ties on its top byte: 6·10⁵ clients each with p = 1 (always
    # present), 10⁻¹² (a threshold of 0: one word in 2³², not met with this seed) and
    # 0.3 (present as often as ⌈p·2³²⌉/2³² says, within 5σ)
    third = 600_000
    n = 3 * third
    p = torch.tensor([1.0, 1e-12, 0.3], dtype=torch.float64).repeat_interleave(third)
    out = present_words(np.random.default_rng(11), SplitThresholds.of(word_thresholds(p)), n)

    assert out[:third].all() and not out[third : 2 * third].any()
    share = float(out[2 * third :].mean())
    assert abs(share - 0.3) < 5 * (0.3 * 0.7 / third) ** 0.5


def test_bernoulli_words_are_present_with_p_independently() -> None:
    # 200 000 clients with p_k ~ U[0.1, 1], 30 rounds: each tenth of the clients by p is
    # present as often as its mean p says (within 5σ), successive rounds are
    # uncorrelated, and a round drawn twice is the same
    n, rounds = 200_000, 30
    cfg = BernoulliParams(profile="uniform", p_min=0.1)
    p = bernoulli_probabilities(cfg, torch.zeros(n, dtype=torch.long), 10, 6)
    model = Bernoulli(p, seed=6)
    m = masks(model, rounds).double()

    order = p.argsort()
    for group in order.chunk(10):
        expected = float(p[group].mean())
        sigma = (float((p[group] * (1 - p[group])).sum()) * rounds) ** 0.5
        assert abs(float(m[:, group].sum()) - expected * len(group) * rounds) < 5 * sigma
    centred = m - p
    lagged = float((centred[1:] * centred[:-1]).mean())
    spread = float(((p * (1 - p)) ** 2).mean()) ** 0.5
    assert abs(lagged) < 5 * spread / (n * (rounds - 1)) ** 0.5
    assert torch.equal(model.mask(4), model.mask(4))


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
    facts = AvailabilityContext(2, torch.zeros(2, dtype=torch.long), 2, 3, population)

    model = Markov.from_params(MarkovParams(population="dataset"), facts)

    assert model.lam is not None
    assert_close(model.pi, population.pi)
    assert_close(model.lam, population.lam)


def test_markov_dataset_population_without_one_names_the_field() -> None:
    facts = AvailabilityContext(2, torch.zeros(2, dtype=torch.long), 2, 3)

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
