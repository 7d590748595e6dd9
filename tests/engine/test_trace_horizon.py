"""π of a trace is computed from its intervals: the same shares as counting round by
round, at a cost that does not grow with the trace's horizon."""

import numpy as np
import pytest
import torch
from torch.testing import assert_close

from worker.engine import ConfigError
from worker.engine.availability.trace import Trace, horizon, interval_count, parse_trace


def round_by_round(rows: torch.Tensor, n: int) -> torch.Tensor:
    """π counted over every round of the horizon (the reference)."""
    t = torch.arange(horizon(rows))
    size = int(rows[:, 0].max()) + 1
    on = torch.zeros(size, len(t), dtype=torch.bool)
    for client, start, end, period in rows.tolist():
        phase = t % period if period else t
        on[client] |= (start <= phase) & (phase < end)
    return on.double().mean(dim=1)[torch.arange(n) % size]


def random_trace(rng: np.random.Generator, periods: list[int]) -> str:
    lines = []
    for _ in range(int(rng.integers(1, 12))):
        client = int(rng.integers(0, 5))
        if rng.random() < 0.5:
            period = int(rng.choice(periods))
            start = int(rng.integers(0, period))
            end = int(rng.integers(start + 1, period + 1))
            lines.append(f"{client},{start},{end},{period}")
        else:
            start = int(rng.integers(0, 400))
            lines.append(f"{client},{start},{start + int(rng.integers(1, 300))}")
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(40))
def test_pi_equals_the_round_by_round_share(seed: int) -> None:
    # periods with a small lcm (exact cycle), and coprime ones whose lcm passes
    # MAX_HORIZON (π over the longest period or end instead)
    periods = [2, 3, 4, 6, 10, 12] if seed % 2 else [317, 331, 337, 7]
    rows = parse_trace(random_trace(np.random.default_rng(seed), periods))

    trace = Trace(rows, n=7)

    assert_close(trace.pi, round_by_round(rows, 7), rtol=0, atol=0)


def test_a_long_trace_needs_no_round_by_round_matrix() -> None:
    rows = parse_trace("0,0,1500000000\n1,0,1,2\n1,5,9,10\n2,1000,2000000000")

    trace = Trace(rows, n=4)  # by rounds: 3 x 2e9 float64, 48 GB

    # horizon = 2e9 (lcm 10 stretched to the last end); client 1: rounds 0, 2, 4, 5,
    # 6, 7, 8 of every 10; client 3 follows client 0
    expected = [1500000000 / 2e9, 0.7, 1999999000 / 2e9, 1500000000 / 2e9]
    assert_close(trace.pi, torch.tensor(expected, dtype=torch.float64), rtol=0, atol=0)
    assert interval_count(rows) == 1 + 5 + 1 + 1  # client 1: rounds 0, 2, 4, 6, 8 and 5-8


def test_interval_count_grows_with_repetitions_within_a_cycle() -> None:
    # client 0's periods 2 and 3 repeat together every 6 rounds: 3 + 2 intervals
    assert interval_count(parse_trace("0,0,1,2\n0,1,2,3\n1,0,5")) == 3 + 2 + 1


def test_masks_of_sparse_trace_ids() -> None:
    trace = Trace(parse_trace("3,0,2\n1000000000000,1,3"), n=4)

    # run clients 0..3 follow trace ids 0..3: only client 3 has intervals
    assert [trace.mask(t).tolist() for t in range(3)] == [
        [False, False, False, True],
        [False, False, False, True],
        [False, False, False, False],
    ]
    assert trace.pi.tolist() == [0.0, 0.0, 0.0, 2 / 3]


def test_rounds_beyond_int64_arithmetic_are_rejected() -> None:
    with pytest.raises(ConfigError, match=r"line 1: end_round 4611686018427387904 is too large"):
        parse_trace(f"0,0,{2**62}")
