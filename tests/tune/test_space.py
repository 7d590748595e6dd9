"""The search space's syntax, its grid, and its refusals naming the key."""

from __future__ import annotations

import pytest

from worker.engine.errors import ConfigError
from worker.tune.space import Dimension, assignments, parse_dimension


def test_each_kind_parses() -> None:
    assert parse_dimension("client.lr=log:1e-3:1") == Dimension("client.lr", "log", 1e-3, 1.0)
    assert parse_dimension("server.lr=linear:0.5:2") == Dimension("server.lr", "linear", 0.5, 2.0)
    assert parse_dimension("client.local_steps=int:1:8") == Dimension(
        "client.local_steps", "int", 1.0, 8.0
    )
    assert parse_dimension("algorithm.name=choice:fedavg,mifa").choices == ("fedavg", "mifa")
    assert parse_dimension("client.momentum=choice:0,0.9").choices == (0, 0.9)


def test_the_grid_by_hand() -> None:
    assert Dimension("k", "log", 1e-3, 1.0).grid(4) == pytest.approx([1e-3, 1e-2, 1e-1, 1.0])
    assert Dimension("k", "linear", 0.0, 1.0).grid(3) == [0.0, 0.5, 1.0]
    assert Dimension("k", "int", 1, 3).grid(5) == [1, 2, 3]  # no more values than integers
    assert Dimension("k", "int", 0, 10).grid(3) == [0, 5, 10]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("client.lr=log:1:1e-3", "client.lr: empty or inverted range"),
        ("client.lr=linear:0.5:0.5", "client.lr: empty or inverted range"),
        ("client.lr=log:0:1", "client.lr: a log range needs LOW > 0"),
        ("client.lr=cube:0:1", "client.lr: unknown range kind 'cube'"),
        ("client.lr=linear:0:x", "client.lr: 'x' is not a number"),
        ("client.lr=linear:0:inf", "client.lr: 'inf' is not finite"),
        ("client.local_steps=int:1:2.5", "client.local_steps: '2.5' is not an integer"),
        ("client.lr=linear:0", "client.lr: expected linear:LOW:HIGH"),
        ("algorithm.name=choice:", "algorithm.name: choice needs at least one value"),
        ("client.lr", "expected KEY=KIND"),
    ],
)
def test_bad_ranges_are_refused_naming_the_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_dimension(text)

    assert message in str(err.value)


def test_a_trials_values_become_assignments() -> None:
    assert assignments({"client.lr": 0.5, "algorithm.name": "mifa"}) == [
        "client.lr=0.5",
        'algorithm.name="mifa"',
    ]
