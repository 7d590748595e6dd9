"""Datasets and partitions: `load_data(config, seed)` builds a `FederatedData`.

Datasets are declared with `@dataset` (one loader each; `components.builtin()` imports
every module of this package). A loader returns either a pool (x, y, x_test, y_test), which is then
split among the clients by `data.partition`, or a `FederatedData` it partitioned
itself (the generated datasets).
"""

from __future__ import annotations

import numpy as np

from worker.engine.data.federated import FederatedData, assemble
from worker.engine.data.incongruent import incongruent
from worker.engine.data.partitions import PartitionError, apply_label_swap, partition
from worker.engine.data.vision import MEAN_STD, DatasetMissing, standardized, unit_scaled
from worker.engine.facts import DatasetFacts
from worker.engine.registry import selected
from worker.engine.rng import numpy_gen
from worker.engine.sections import DataSection

__all__ = ["DatasetMissing", "FederatedData", "PartitionError", "load_data"]


def load_data(cfg: DataSection, seed: int) -> FederatedData:
    """The clients' data. Every random draw (generation, partition) comes from one
    generator: `np.random.default_rng(data.seed)` when set, so the data do not depend
    on the run seed `seed`; otherwise one derived from `seed`."""
    rng = np.random.default_rng(cfg.seed) if cfg.seed is not None else numpy_gen(seed, "data")
    entry, params = selected(cfg, cfg.components.datasets)
    loaded = entry.component(params, cfg, rng)
    if isinstance(loaded, FederatedData):
        return loaded
    x, y, xt, yt = loaded
    if cfg.normalization == "standard" and cfg.dataset in MEAN_STD:
        x, xt = standardized(cfg.dataset, x), standardized(cfg.dataset, xt)
    elif cfg.normalization == "unit" and entry.facts.source == "data_root":
        x, xt = unit_scaled(x), unit_scaled(xt)
    facts: DatasetFacts = entry.facts
    if cfg.partition == "incongruent":
        return incongruent((x, y, xt, yt), facts.n_classes, cfg, rng)
    if cfg.max_train_samples is not None and cfg.max_train_samples < len(y):
        keep = rng.permutation(len(y))[: cfg.max_train_samples]
        x, y = x[keep], y[keep]
    rows = partition(y.numpy(), cfg, rng)
    data = assemble(x, y, rows, xt, yt, facts.n_classes, rng)
    if cfg.partition == "label_swap":
        data = apply_label_swap(data, cfg.n_clusters, cfg.swap_pairs)
    return data
