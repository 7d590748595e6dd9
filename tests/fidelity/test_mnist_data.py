"""The `incongruent` split of the real MNIST with `data.seed = 42` is the official CA-Fed
generator's (`cafed-mnist/README.md`): every client's rows of the 70 000 images (their
SHA-256 and first five), its train/test cut, cluster, swapped labels and population."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.fidelity.real_data import data_root
from worker.engine.data import FederatedData, load_data
from worker.engine.data.partitions.incongruent import Split, draw_split
from worker.engine.data.vision import torchvision_pool
from worker.engine.sections import DataSection
from worker.presets import get_preset

CLIENTS = json.loads((Path(__file__).parent / "cafed-mnist" / "clients.json").read_text())
TRAIN_ROWS = 60_000


@pytest.fixture(scope="module")
def config_data() -> DataSection:
    return get_preset("cafed-mnist").run_config([f"data.root={data_root('mnist')}"]).data


@pytest.fixture(scope="module")
def split(config_data: DataSection) -> Split:
    params = config_data.incongruent  # type: ignore[attr-defined]
    return draw_split(70_000, 10, config_data.n_clients, params, np.random.default_rng(42))


@pytest.fixture(scope="module")
def data(config_data: DataSection) -> FederatedData:
    return load_data(config_data, seed=0)


def digest(rows: np.ndarray) -> str:
    return hashlib.sha256(json.dumps(rows.tolist(), separators=(",", ":")).encode()).hexdigest()


@pytest.mark.parametrize("client", range(24))
def test_each_clients_rows_cluster_and_swaps_are_the_official_ones(
    split: Split, client: int
) -> None:
    theirs = CLIENTS[client]
    rows = split.rows[client]

    assert rows[:5].tolist() == theirs["pool_indices_first"]
    assert digest(rows) == theirs["pool_indices_sha256"]
    assert int((rows < TRAIN_ROWS).sum()) == theirs["n_train"]
    assert int(split.cluster[client]) == theirs["cluster"]
    expected = np.arange(10)
    for a, b in theirs["labels_to_swap"]:
        expected[[a, b]] = expected[[b, a]]
    assert split.label_map[client].tolist() == expected.tolist()


def test_the_population_is_the_official_one(split: Split) -> None:
    pi = torch.tensor([c["availability"] for c in CLIENTS], dtype=torch.float64)
    lam = torch.tensor([c["stability"] for c in CLIENTS], dtype=torch.float64)

    torch.testing.assert_close(split.population.pi, pi, atol=1e-12, rtol=0)
    torch.testing.assert_close(split.population.lam, lam, atol=1e-12, rtol=0)


def test_each_client_holds_its_rows_images_and_swapped_labels(
    split: Split, data: FederatedData
) -> None:
    x, y, xt, yt = torchvision_pool("mnist", data_root("mnist"), download=False)
    images, labels = torch.cat([x, xt]), torch.cat([y, yt])
    for k, rows in enumerate(split.rows):
        for cut, xs, ys, off in (
            (rows[rows < TRAIN_ROWS], data.x_train, data.y_train, data.train_offsets),
            (rows[rows >= TRAIN_ROWS], data.x_test, data.y_test, data.test_offsets),
        ):
            lo, hi = int(off[k]), int(off[k + 1])
            pixels = images[cut].double() / 255  # the bytes, in [0, 1]
            standard = ((pixels - 0.1307) / 0.3081).float()
            torch.testing.assert_close(data.inputs(xs[lo:hi]), standard)
            mapped = torch.as_tensor(split.label_map[k])[labels[cut]]
            assert torch.equal(ys[lo:hi], mapped), f"client {k}"
    assert data.population is not None
    assert torch.equal(data.population.pi, split.population.pi)
