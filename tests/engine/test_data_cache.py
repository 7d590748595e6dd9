"""The data root's cache of parsed datasets: written on the first read, mapped after,
read again when a source file changes, and skipped where it cannot be written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from tests.engine.test_data import write_tiny_mnist
from worker.engine.config import DataConfig
from worker.engine.data import cache, load_data


def mnist(root: Path) -> DataConfig:
    return DataConfig(dataset="mnist", root=str(root), n_clients=4, partition="iid")


def test_a_second_load_maps_the_cache_instead_of_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tiny_mnist(tmp_path, n_train=40, n_test=12)
    first = load_data(mnist(tmp_path), seed=0)
    folder = tmp_path / cache.FOLDER
    assert sorted(p.name for p in folder.iterdir()) == [
        "mnist-test-x.npy", "mnist-test-y.npy", "mnist-test.json",
        "mnist-train-x.npy", "mnist-train-y.npy", "mnist-train.json",
    ]  # fmt: skip

    def no_parsing(*args: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr("worker.engine.data.vision._read", no_parsing)
    second = load_data(mnist(tmp_path), seed=0)

    assert torch.equal(first.x_train, second.x_train)
    assert torch.equal(first.y_test, second.y_test)


def test_a_changed_source_file_is_read_again(tmp_path: Path) -> None:
    write_tiny_mnist(tmp_path, n_train=40, n_test=12)
    before = load_data(mnist(tmp_path), seed=0)
    labels = tmp_path / "MNIST" / "raw" / "train-labels-idx1-ubyte"
    data = bytearray(labels.read_bytes())
    data[8:] = bytes((b + 1) % 10 for b in data[8:])  # every label moves on by one
    labels.write_bytes(bytes(data))
    os.utime(labels, ns=(1, 1))

    after = load_data(mnist(tmp_path), seed=0)

    assert torch.equal(
        torch.bincount(after.y_train, minlength=10).roll(-1),
        torch.bincount(before.y_train, minlength=10),
    )


def test_a_root_where_the_cache_cannot_be_written_is_read_every_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_tiny_mnist(tmp_path, n_train=40, n_test=12)
    (tmp_path / cache.FOLDER).write_text("not a folder")  # mkdir fails, even as root

    data = load_data(mnist(tmp_path), seed=0)

    assert len(data.y_train) == 40
    assert "data cache not written" in caplog.text
