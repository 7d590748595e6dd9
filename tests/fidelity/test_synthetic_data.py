"""`synthetic_clustered` with `data.seed = 42` is the official CA-Fed generator's output
(`cafed-synthetic/README.md`): every client's samples and labels, and the population."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from worker.engine import section_class
from worker.engine.components import current
from worker.engine.data import FederatedData, load_data
from worker.engine.sections import DataSection

DataConfig = section_class(current(), DataSection)

REFERENCE = Path(__file__).parent / "cafed-synthetic"
CLIENTS = json.loads((REFERENCE / "clients.json").read_text())


@pytest.fixture(scope="module")
def data() -> FederatedData:
    cfg = DataConfig.model_validate(
        dict(n_clients=24, n_clusters=2, seed=42, synthetic_clustered={"dimension": 10})
    )
    return load_data(cfg, seed=0)  # the run seed plays no part


def reference(client: int, name: str) -> np.ndarray:
    return np.load(REFERENCE / "data" / f"client_{client}" / f"{name}.npy")


@pytest.mark.parametrize("client", range(24))
def test_each_clients_samples_and_labels_are_the_official_ones(
    data: FederatedData, client: int
) -> None:
    for split, x, y, off in (
        ("train", data.x_train, data.y_train, data.train_offsets),
        ("test", data.x_test, data.y_test, data.test_offsets),
    ):
        lo, hi = int(off[client]), int(off[client + 1])
        expected_x = torch.as_tensor(reference(client, f"{split}_data"), dtype=torch.float32)
        assert torch.equal(x[lo:hi], expected_x)
        assert torch.equal(y[lo:hi], torch.as_tensor(reference(client, f"{split}_targets")))


def test_clusters_and_population_are_the_official_ones(data: FederatedData) -> None:
    assert data.cluster.tolist() == [c["cluster"] for c in CLIENTS]
    assert data.population is not None
    pi = torch.tensor([c["availability"] for c in CLIENTS], dtype=torch.float64)
    lam = torch.tensor([c["stability"] for c in CLIENTS], dtype=torch.float64)
    torch.testing.assert_close(data.population.pi, pi, atol=1e-12, rtol=0)
    torch.testing.assert_close(data.population.lam, lam, atol=1e-12, rtol=0)
