import pytest
import torch
from torch.testing import assert_close

from worker.engine import ConfigError, build_config
from worker.engine.availability.trace import Trace, parse_trace

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
