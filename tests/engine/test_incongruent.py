"""CA-Fed's incongruent split, by hand: chunk sizes, label swaps, the joined pool's
train/test cut, and the standardised pixels it trains on."""

from __future__ import annotations

import numpy as np
import torch
from torch.testing import assert_close

from worker.engine import section_class
from worker.engine.components import current
from worker.engine.data import load_data
from worker.engine.data.partitions.incongruent import (
    IncongruentParams,
    incongruent,
    leaf_chunks,
    swap_labels,
)
from worker.engine.data.vision import standardized
from worker.engine.sections import DataSection

DataConfig = section_class(current(), DataSection)


def test_leaf_chunks_put_the_smaller_chunks_first() -> None:
    chunks = leaf_chunks(np.arange(11), 3)

    assert [c.tolist() for c in chunks] == [[0, 1, 2], [3, 4, 5, 6], [7, 8, 9, 10]]


def test_swap_labels_swaps_each_pair() -> None:
    assert swap_labels(np.array([[9, 3], [6, 7]]), 10).tolist() == [0, 1, 2, 9, 4, 5, 7, 6, 8, 3]


def test_standardized_pixels_are_the_bytes_over_255_less_the_mean_over_the_std() -> None:
    pixel_bytes = torch.tensor([0.0, 51.0, 255.0]).view(3, 1, 1, 1)

    out = standardized("mnist", pixel_bytes / 127.5 - 1)

    assert_close(out.flatten(), (torch.tensor([0.0, 0.2, 1.0]) - 0.1307) / 0.3081)


def test_rows_from_the_train_pool_train_and_the_others_test() -> None:
    n_train, n_test = 30, 10
    x = torch.arange(n_train + n_test, dtype=torch.float32).view(-1, 1)  # x = row number
    y = torch.zeros(n_train + n_test, dtype=torch.long)
    params = IncongruentParams(n_clusters=2, swap_pairs=1)
    pool = (x[:n_train], y[:n_train], x[n_train:], y[n_train:])

    data = incongruent(pool, 10, 4, params, np.random.default_rng(0))

    assert sorted(data.x_train.flatten().tolist()) == list(range(n_train))
    assert sorted(data.x_test.flatten().tolist()) == list(range(n_train, n_train + n_test))
    assert data.train_offsets.diff().sum() + data.test_offsets.diff().sum() == 40
    assert (data.test_offsets.diff() + data.train_offsets.diff()).tolist() == [10] * 4
    assert data.population is not None and len(data.population.pi) == 4
    for k in range(4):  # label 0 becomes the cluster's swapped label, the same for both splits
        lo, hi = int(data.train_offsets[k]), int(data.train_offsets[k + 1])
        tlo, thi = int(data.test_offsets[k]), int(data.test_offsets[k + 1])
        assert set(data.y_train[lo:hi].tolist()) | set(data.y_test[tlo:thi].tolist()) == {
            int(data.y_train[lo])
        }


def test_the_digits_take_the_incongruent_split_and_keep_their_scaling() -> None:
    cfg = DataConfig(
        dataset="digits", n_clients=6, partition="incongruent", normalization="standard"
    )

    data = load_data(cfg, seed=0)

    assert len(data.y_train) + len(data.y_test) == 1797
    x = data.inputs(data.x_train)
    assert x.min() >= 0 and x.max() <= 1
