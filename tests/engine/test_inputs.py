"""Samples held as bytes with a byte table (`FederatedData.x_values`, FEMNIST's pixels) turned
into the model's inputs a batch at a time: the same float32 as converting them all up
front, so a run's records are the same to the bit."""

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from tests.engine.test_leaf import write
from worker.engine import ListSink, build_config, simulate
from worker.engine import loop as engine_loop
from worker.engine.data import FederatedData, load_data
from worker.engine.data.federated import byte_values, inputs
from worker.engine.data.leaf_datasets import over_255

LEAF = byte_values(1, over_255)  # FEMNIST's table: k/255


def test_bytes_become_k_over_255_by_hand() -> None:
    k = torch.tensor([[0, 1], [51, 255]], dtype=torch.uint8)
    x = inputs(k, LEAF)
    assert x.dtype == torch.float32 and x.shape == (2, 2)
    expected = np.array([[0, 1 / 255], [0.2, 1]], dtype=np.float32)  # float64 k/255, rounded
    assert np.array_equal(x.numpy(), expected)
    halves = byte_values(1, lambda t: t.div_(2.0))
    assert inputs(k, halves).tolist() == [[0, 0.5], [25.5, 127.5]]


def test_every_byte_gives_the_float_an_up_front_division_gives() -> None:
    k = np.arange(256, dtype=np.uint8)
    up_front = torch.from_numpy(k.astype(np.float32)).div_(255)  # the loader's old conversion
    assert torch.equal(inputs(torch.from_numpy(k), LEAF), up_front)
    assert torch.equal(inputs(torch.from_numpy(k).view(16, 16), LEAF), up_front.view(16, 16))


def test_samples_without_a_table_are_handed_over_as_they_are() -> None:
    tokens = torch.tensor([[3, 79]], dtype=torch.uint8)  # Shakespeare's token ids
    floats = torch.rand(2, 3)
    assert inputs(tokens, None) is tokens and inputs(floats, None) is floats
    assert inputs(torch.zeros(0, 1, 28, 28, dtype=torch.uint8), LEAF).shape == (0, 1, 28, 28)


def test_a_table_on_samples_that_are_not_bytes_is_refused() -> None:
    with pytest.raises(TypeError, match="uint8"):
        inputs(torch.zeros(2, dtype=torch.int16), LEAF)


def pixel_femnist(root: Path) -> None:
    """Three writers of random pixel bytes (LEAF's floats k/255), a test file for each."""
    rng = np.random.default_rng(7)

    def user(n: int) -> dict[str, Any]:
        pixels = rng.integers(0, 256, (n, 784)) / 255
        return {"x": pixels.tolist(), "y": rng.integers(0, 62, n).tolist()}

    write(root, "femnist", "train", "a.json", {"w1": user(6), "w2": user(5)})
    write(root, "femnist", "train", "b.json", {"w3": user(7)})
    write(root, "femnist", "test", "a.json", {"w1": user(3), "w2": user(2), "w3": user(3)})


def up_front(data: FederatedData) -> FederatedData:
    """The data as the loader held it before: every image as float32, converted once."""
    assert data.x_values is not None and torch.equal(data.x_values, LEAF)

    def floats(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(x.numpy().astype(np.float32)).div_(255)

    return replace(data, x_train=floats(data.x_train), x_test=floats(data.x_test), x_values=None)


CASES: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "stacked CNN": ({"name": "leaf_cnn"}, "vmap", {"name": "fedavg"}),
    "sequential CNN": ({"name": "leaf_cnn"}, "sequential", {"name": "fedavg"}),
    "softmax regression": ({"name": "linear"}, "vmap", {"name": "fedavg"}),
    "batch probes": ({"name": "linear"}, "vmap", {"name": "cafed"}),
    "test split probes": (
        {"name": "linear"},
        "sequential",
        {"name": "cafed", "cafed": {"loss_probe": "test_split"}},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_run_on_bytes_records_what_a_run_on_floats_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    pixel_femnist(tmp_path)
    model, backend, algorithm = CASES[case]
    cfg = build_config(
        {
            "rounds": 3,
            "backend": backend,
            "data": {"dataset": "femnist", "root": str(tmp_path), "n_clients": 3},
            "model": model,
            "algorithm": {**algorithm, "participation": 3},
            "client": {"local_steps": 2, "batch_size": 2, "lr": 0.05},
            "eval": {"validation": 0.2, "client_every": 1},
        },
        [],
    )
    runs = []
    for convert in (False, True):
        if convert:
            monkeypatch.setattr(engine_loop, "load_data", lambda *a: up_front(load_data(*a)))
        sink = ListSink()
        simulate(cfg, sink)
        runs.append(sink.records)
    held, converted = runs
    assert len(held) == 3 and "val_acc" in held[-1].metrics
    for a, b in zip(held, converted, strict=True):
        assert a.metrics == b.metrics  # to the bit
        assert a.client_acc == b.client_acc
        assert torch.equal(torch.as_tensor(a.selected), torch.as_tensor(b.selected))
