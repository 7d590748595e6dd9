"""The data root's cache of parsed datasets: written on the first read, mapped after,
read again when a source file changes, kept in the user's cache folder where the root
cannot be written (a read-only bind mount, as a cluster's shared datasets), and skipped
where nothing can be written."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import torch

from tests.engine.test_data import write_tiny_mnist
from worker.engine import section_class
from worker.engine.components import current
from worker.engine.data import cache, load_data
from worker.engine.sections import DataSection

DataConfig = section_class(current(), DataSection)


def mnist(root: Path) -> DataSection:
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


def no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def parse(*args: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr("worker.engine.data.vision._read", parse)


def test_a_root_that_cannot_hold_the_cache_keeps_it_in_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, home = tmp_path / "root", tmp_path / "home"
    write_tiny_mnist(root, n_train=40, n_test=12)
    (root / cache.FOLDER).write_text("not a folder")  # mkdir fails, even as root
    monkeypatch.setenv("HOME", str(home))

    first = load_data(mnist(root), seed=0)
    (user,) = (home / ".cache" / "fedwatch" / "datasets").iterdir()
    no_parsing(monkeypatch)
    second = load_data(mnist(root), seed=0)

    assert user == cache.folders(root)[1] and (user / "mnist-train-x.npy").is_file()
    assert torch.equal(first.x_train, second.x_train)


@contextmanager
def read_only(source: Path, target: Path) -> Iterator[Path]:
    """`source` mounted read-only at `target` (root only, as CI runs)."""
    target.mkdir()
    done = subprocess.run(["mount", "--bind", "-o", "ro", str(source), str(target)],
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"a read-only bind mount needs root: {done.stderr.strip()}")
    try:
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=True)


def test_a_read_only_data_root_works_and_caches_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tiny_mnist(tmp_path / "files", n_train=40, n_test=12)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with read_only(tmp_path / "files", tmp_path / "shared") as root:
        with pytest.raises(OSError):
            (root / "probe").write_text("x")  # the root is read-only indeed
        first = load_data(mnist(root), seed=0)
        no_parsing(monkeypatch)
        second = load_data(mnist(root), seed=0)

        assert torch.equal(first.y_train, second.y_train)
        assert not (root / cache.FOLDER).exists()
        assert (cache.folders(root)[1] / "mnist-test.json").is_file()


def test_where_no_cache_can_be_written_the_files_are_read_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    write_tiny_mnist(tmp_path, n_train=40, n_test=12)
    (tmp_path / cache.FOLDER).write_text("not a folder")
    (tmp_path / "home").write_text("not a folder either")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    data = load_data(mnist(tmp_path), seed=0)

    assert len(data.y_train) == 40
    assert caplog.text.count("data cache not written") == 2 * 2  # both folders, both splits
