"""What needs a clock says so: the fields of rounds in time without a system model,
over-commitment of an algorithm that trains every available client, a central one."""

from __future__ import annotations

import pytest

from worker.engine import ConfigError, build_config
from worker.engine.loop import selection_size


@pytest.mark.parametrize(
    ("setting", "problem"),
    [
        ("round.deadline_s=10", "round.deadline_s: needs simulated time"),
        ("round.over_commit=0.3", "round.over_commit: needs simulated time"),
        ("client.partial_work=keep", "client.partial_work: needs simulated time"),
    ],
)
def test_time_fields_need_a_system_model(setting: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        build_config({}, [setting])

    build_config({}, [setting, "system.kind=profiles"])


def test_over_commitment_needs_an_algorithm_that_samples() -> None:
    with pytest.raises(ConfigError, match=r"round\.over_commit: unbiased trains every available"):
        build_config({}, ["system.kind=profiles", "algorithm.name=unbiased", "round.over_commit=1"])


def test_central_sgd_has_no_time() -> None:
    with pytest.raises(ConfigError, match=r"system\.kind: sgd trains centrally"):
        build_config({}, ["system.kind=profiles", "algorithm.name=sgd"])


@pytest.mark.parametrize(("over", "k", "expected"), [(0.0, 10, 10), (0.3, 10, 13), (0.25, 2, 3)])
def test_over_commitment_selects_the_ceiling(over: float, k: int, expected: int) -> None:
    cfg = build_config(
        {}, ["system.kind=profiles", f"round.over_commit={over}", f"algorithm.participation={k}"]
    )

    assert selection_size(cfg) == expected
