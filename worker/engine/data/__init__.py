"""Datasets and partitions: `load_data(config, seed)` builds a `FederatedData`.

Datasets are declared with `@dataset` (one loader each; `components.builtin()` imports
every module of this package), partitions with `@partition` (`partitions/`). A loader
returns either a pool (x, y, x_test, y_test, or a `Grouped` pool whose samples belong to
users), which the partition `data.partition` then splits among the clients, or a
`FederatedData` it partitioned itself (the generated datasets).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
from torch import Tensor

from worker.engine.data.federated import FederatedData, converted
from worker.engine.data.partitions.base import Grouped, PartitionContext, PartitionError
from worker.engine.data.vision import MEAN_STD, DatasetMissing, standardized, unit_scaled
from worker.engine.facts import DatasetFacts
from worker.engine.registry import selected
from worker.engine.rng import numpy_gen
from worker.engine.sections import DataSection

__all__ = [
    "DatasetMissing",
    "FederatedData",
    "Grouped",
    "PartitionError",
    "check_dataset",
    "load_data",
]


def check_dataset(cfg: DataSection) -> None:
    """The dataset's own check of its files under `data.root`, before any run is created:
    its cheap layout check (`DatasetFacts.layout`, a LEAF split without JSON files), then
    its loader's check of them against its parameters where it has one (`check(params,
    data)`, as the `hf` dataset's columns). `ConfigError` naming the key."""
    entry, params = selected(cfg, cfg.components.datasets)
    facts: DatasetFacts = entry.facts
    if facts.layout is not None:
        facts.layout(Path(cfg.root))
    check = getattr(entry.component, "check", None)
    if check is not None:
        check(params, cfg)


def load_data(cfg: DataSection, seed: int) -> FederatedData:
    """The clients' data. Every random draw (generation, partition) comes from one
    generator: `np.random.default_rng(data.seed)` when set, so the data do not depend
    on the run seed `seed`; otherwise one derived from `seed`."""
    rng = np.random.default_rng(cfg.seed) if cfg.seed is not None else numpy_gen(seed, "data")
    entry, params = selected(cfg, cfg.components.datasets)
    loaded = entry.component(params, cfg, rng)
    if isinstance(loaded, FederatedData):
        return loaded
    pool = loaded if isinstance(loaded, Grouped) else Grouped(loaded)
    x, y, xt, yt = pool.pool
    values = pool.values
    convert = normalization(cfg, entry.facts)
    if convert is not None and values is not None:
        values = converted(values, convert)
    elif convert is not None:
        x, xt = convert(x), convert(xt)
    pool = Grouped((x, y, xt, yt), pool.train_groups, pool.test_groups, values)
    facts: DatasetFacts = entry.facts
    ctx = PartitionContext(cfg.dataset, cfg.n_clients, facts.n_classes, cfg.max_train_samples)
    split, split_params = selected(cfg, cfg.components.partitions)
    data = split.component(split_params).split(pool, ctx, rng)
    return data if values is None else replace(data, x_values=values)


def normalization(cfg: DataSection, facts: DatasetFacts) -> Callable[[Tensor], Tensor] | None:
    """What `data.normalization` makes of a pool's images in [-1, 1] (None: nothing),
    applied to its byte table where it holds bytes (`FederatedData.x_values`)."""
    if cfg.normalization == "standard" and cfg.dataset in MEAN_STD:
        return partial(standardized, cfg.dataset)
    if cfg.normalization == "unit" and facts.source == "data_root":
        return unit_scaled
    return None
