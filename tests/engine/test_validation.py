"""`eval.validation`: each client holds out ⌊fraction·size⌋ of its training rows; the
engine scores the global model on them (`val_acc`, `val_loss`, `final_val_*`)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from worker.engine import ConfigError, ListSink, simulate
from worker.engine.data.federated import FederatedData, offsets
from worker.engine.data.validation import held_out, hold_out
from worker.presets import get_preset


def two_clients() -> FederatedData:
    x = torch.arange(10, dtype=torch.float32).reshape(10, 1)
    return FederatedData(
        x_train=x,
        y_train=torch.arange(10) % 2,
        train_offsets=offsets([4, 6]),
        x_test=x[:2],
        y_test=torch.zeros(2, dtype=torch.long),
        test_offsets=offsets([1, 1]),
        n_classes=2,
        task="classification",
        client_class=torch.zeros(2, dtype=torch.long),
        cluster=torch.zeros(2, dtype=torch.long),
    )


def test_the_split_by_hand() -> None:
    # Client 0 holds rows 0..3, client 1 rows 4..9; a half: ⌊0.5·4⌋ = 2, ⌊0.5·6⌋ = 3.
    trained, val = hold_out(two_clients(), 0.5, np.random.default_rng(0))

    assert val is not None
    assert trained.train_offsets.tolist() == [0, 2, 5]
    first = set(trained.x_train[:2, 0].tolist()) | set(val.x[:2, 0].tolist())
    second = set(trained.x_train[2:, 0].tolist()) | set(val.x[2:, 0].tolist())
    assert (first, second) == ({0, 1, 2, 3}, {4, 5, 6, 7, 8, 9})
    assert val.y.tolist() == [int(v) % 2 for v in val.x[:, 0].tolist()]


def test_degenerate_sizes() -> None:
    assert [held_out(size, 0.5) for size in (0, 1, 2, 3)] == [0, 0, 1, 1]
    assert held_out(5, 0.99) == 4  # one row is always left to train on


def test_no_fraction_changes_nothing() -> None:
    data = two_clients()

    trained, val = hold_out(data, 0.0, np.random.default_rng(0))

    assert (trained, val) == (data, None)


def test_the_engine_records_validation_values() -> None:
    base = ["rounds=3", "client.local_steps=1"]
    preset = get_preset("cafed-synthetic")
    with_val = preset.run_config([*base, "eval.validation=0.2"])
    without = preset.run_config(base)

    sink = ListSink()
    summary = simulate(with_val, sink)
    plain = simulate(without, ListSink())

    last = sink.records[-1].metrics
    assert 0 <= last["val_acc"] <= 1
    assert summary.values["final_val_acc"] == pytest.approx(last["val_acc"])
    assert summary.values["final_val_loss"] == pytest.approx(last["val_loss"])
    assert plain.values["final_val_acc"] is None
    with pytest.raises(ConfigError, match=r"eval\.validation"):
        preset.run_config(["eval.validation=1"])
