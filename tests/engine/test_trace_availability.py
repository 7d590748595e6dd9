import pytest
import torch
from torch.testing import assert_close

from worker.engine import ConfigError, build_config
from worker.engine.availability.base import AvailabilityContext
from worker.engine.availability.trace import Trace, TraceParams, parse_trace
from worker.engine.data import load_data
from worker.engine.data.population import Population
from worker.engine.loop import build_availability

CSV = """client,start_round,end_round,period
0,0,3,4

# client 1 once, client 2 every other round
1,2,5
2,1,2,2
"""


def test_parses_rows_skipping_header_blank_and_comment_lines() -> None:
    assert parse_trace(CSV).tolist() == [[0, 0, 3, 4], [1, 2, 5, 0], [2, 1, 2, 2]]


def test_masks_replay_intervals_and_map_ids_modulo_the_trace() -> None:
    trace = Trace(parse_trace(CSV), n=5)  # clients 3, 4 follow trace clients 0, 1

    masks = [trace.mask(t).int().tolist() for t in range(6)]

    assert masks == [
        [1, 0, 0, 1, 0],
        [1, 0, 1, 1, 0],
        [1, 1, 0, 1, 1],
        [0, 1, 1, 0, 1],
        [1, 1, 0, 1, 1],
        [1, 0, 1, 1, 0],
    ]


def test_true_pi_is_the_long_run_share() -> None:
    trace = Trace(parse_trace(CSV), n=5)

    # horizon = lcm(4, 2) stretched to cover end 5 → 8 rounds; client 1 on in 3 of them
    assert_close(trace.pi, torch.tensor([0.75, 3 / 8, 0.5, 0.75, 3 / 8], dtype=torch.float64))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0,1,4\n0,1", "line 2: expected client,start_round,end_round[,period], got 2 fields"),
        ("client,start,end\n0,a,3", "line 2: start_round 'a' is not an integer"),
        ("0,1,4\n\n3,3,3", "line 3: end_round (3) must exceed start_round (3)"),
        ("0,2,9,5", "line 1: period (5) must be >= end_round (9)"),
        ("-1,0,2", "line 1: client and start_round must be >= 0"),
        ("client,start_round,end_round\n", "no intervals"),
    ],
)
def test_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=r"^availability\.trace\.csv: ") as err:
        parse_trace(text)

    assert message in str(err.value)


def test_config_rejects_an_empty_trace() -> None:
    with pytest.raises(ConfigError, match=r"availability\.trace\.csv"):
        build_config({}, ["availability.kind=trace"])


def test_dataset_population_sets_pi_and_lam_but_not_the_draws() -> None:
    population = Population(
        torch.tensor([0.2, 0.6, 0.9], dtype=torch.float64),
        torch.tensor([0.9, 0.0, 0.5], dtype=torch.float64),
    )
    facts = AvailabilityContext(3, torch.zeros(3, dtype=torch.long), 2, 0, population)
    params = TraceParams(csv=CSV, population="dataset")

    model = Trace.from_params(params, facts)

    assert_close(model.pi, population.pi)
    assert_close(model.lam, population.lam)
    plain = Trace(parse_trace(CSV), n=3)
    assert all(torch.equal(model.mask(t), plain.mask(t)) for t in range(8))


def test_dataset_population_of_a_run_is_the_datasets() -> None:
    config = build_config(
        {"data": {"seed": 42}},
        [
            "availability.kind=trace",
            f"availability.trace.csv={CSV}",
            "availability.trace.population=dataset",
        ],
    )
    data = load_data(config.data, config.seed)

    model = build_availability(config, data)

    assert data.population is not None and model.lam is not None
    assert torch.equal(model.pi, data.population.pi) and torch.equal(model.lam, data.population.lam)
    assert model.mask(1).int().tolist()[:3] == [1, 0, 1]


def test_dataset_population_needs_a_dataset_that_declares_one() -> None:
    with pytest.raises(ConfigError, match=r"availability\.trace\.population: .*'mean_estimation'"):
        build_config(
            {"data": {"dataset": "mean_estimation", "n_clients": 4}, "model": {"name": "scalar"}},
            [
                "algorithm.participation=2",
                "availability.kind=trace",
                "availability.trace.csv=0,0,1",
                "availability.trace.population=dataset",
            ],
        )
