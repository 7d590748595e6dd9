"""Datasets and partitions: `load_data(config)` builds a `FederatedData`."""

from __future__ import annotations

from worker.engine.config import DataConfig
from worker.engine.data.federated import FederatedData, assemble
from worker.engine.data.partitions import PartitionError, apply_label_swap, partition
from worker.engine.data.synthetic import mean_estimation, synthetic_clustered
from worker.engine.data.vision import DatasetMissing, digits_pool, torchvision_pool
from worker.engine.rng import numpy_gen

__all__ = ["DatasetMissing", "FederatedData", "PartitionError", "load_data"]


def load_data(cfg: DataConfig, seed: int) -> FederatedData:
    rng = numpy_gen(seed, "data")
    if cfg.dataset == "synthetic_clustered":
        return synthetic_clustered(cfg, rng)
    if cfg.dataset == "mean_estimation":
        return mean_estimation(cfg, rng)
    if cfg.dataset == "digits":
        x, y, xt, yt = digits_pool(rng)
    else:
        x, y, xt, yt = torchvision_pool(cfg.dataset, cfg.root, cfg.download)
    if cfg.max_train_samples is not None and cfg.max_train_samples < len(y):
        keep = rng.permutation(len(y))[: cfg.max_train_samples]
        x, y = x[keep], y[keep]
    rows = partition(y.numpy(), cfg, rng)
    data = assemble(x, y, rows, xt, yt, 10, rng)
    if cfg.partition == "label_swap":
        data = apply_label_swap(data, cfg.n_clusters, cfg.swap_pairs)
    return data
