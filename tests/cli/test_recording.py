"""A round as the command line writes it, turned into what the SDK sends."""

from __future__ import annotations

import math

from fedwatch.cli.recording import round_entry


def test_a_rounds_fields_are_kept_apart_from_its_metrics() -> None:
    record = {
        "round": 4,
        "test_acc": 0.5,
        "train_loss": math.nan,
        "available": [0, 2],
        "selected": [2],
        "weights": {"2": 1.0},
        "wall_s": 0.25,
        "client_acc": [0.5, math.inf, 1.0],
        "timeline": {"ids": [2]},
        "clients": {"data_share": [0.5, 0.5]},
    }

    assert round_entry(record) == {
        "round": 4,
        "metrics": {"test_acc": 0.5, "train_loss": None},
        "available": [0, 2],
        "selected": [2],
        "weights": {"2": 1.0},
        "client_acc": [0.5, None, 1.0],
    }


def test_a_round_with_only_its_number_has_no_clients() -> None:
    assert round_entry({"round": 0}) == {"round": 0, "metrics": {}}
