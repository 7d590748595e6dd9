"""`natural`: one client per user of the dataset (LEAF's writers and speaking roles), or
per value of a column it declares.

A dataset that reads its users' own splits (LEAF's per-user train and test files) makes
this partition itself (`DatasetFacts.partitions`); one whose loader returns a pool gives
every row's group id (`Grouped`), and this partition gathers them: clients in ascending
order of id, each with its own train rows and its own test rows (test rows of a group
with no train rows belong to no client, and still count for the global test metrics).
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import Field

from worker.engine.data.federated import FederatedData, assemble
from worker.engine.data.partitions.base import Grouped, Partition, PartitionContext, PartitionError
from worker.engine.params import Params, RunShape
from worker.engine.registry import partition

USERS = "users"


class NaturalParams(Params):
    by: str = Field(
        USERS,
        min_length=1,
        max_length=64,
        description="users: the dataset's own users, one client each; otherwise a column "
        "the dataset declares, one client per value.",
    )

    def check_run(self, run: RunShape) -> None:
        if self.by == USERS and not run.data.users:
            raise ValueError(
                f"data.natural.by: {run.dataset} has no users (its samples belong to no "
                "writer or speaker); choose a dataset with users, or another partition"
            )
        if self.by != USERS and self.by not in run.data.columns:
            columns = ", ".join(map(repr, run.data.columns)) or "none"
            raise ValueError(
                f"data.natural.by: {run.dataset} has no column {self.by!r} (its columns: {columns})"
            )


def groups_of(ids: np.ndarray, keys: np.ndarray) -> list[np.ndarray]:
    """For each key in `keys`, the rows whose id is it, in row order."""
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    lo = np.searchsorted(sorted_ids, keys, side="left")
    hi = np.searchsorted(sorted_ids, keys, side="right")
    return [order[a:b] for a, b in zip(lo, hi, strict=True)]


@partition("natural", params=NaturalParams, label="natural (users or a column)")
class Natural(Partition):
    params: NaturalParams

    def split(
        self, pool: Grouped, ctx: PartitionContext, rng: np.random.Generator
    ) -> FederatedData:
        by = self.params.by
        if by not in pool.train_groups:
            raise PartitionError(f"data.natural.by: {ctx.dataset} gives no {by!r} of its samples")
        ids = np.asarray(pool.train_groups[by])
        keys = np.unique(ids)
        if len(keys) != ctx.n_clients:
            raise PartitionError(
                f"data.n_clients: {ctx.dataset} has {len(keys)} {by} with train samples, one "
                f"client each; set data.n_clients={len(keys)}"
            )
        rows = groups_of(ids, keys)
        test = pool.test_groups.get(by)
        test_rows = None if test is None else groups_of(np.asarray(test), keys)
        x, y, xt, yt = pool.pool
        return assemble(x, y, rows, xt, yt, ctx.n_classes, rng, test_rows=test_rows)

    def spread(self) -> float:
        return math.inf
