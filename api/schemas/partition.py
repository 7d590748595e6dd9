"""A partition's view (`worker/engine/data/view.py`) on the wire."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from api.schemas.runs import InstalledConfig
from worker.engine import current, run_config_for


class PartitionPreview(BaseModel):
    model_config = ConfigDict(extra="forbid")

    config: InstalledConfig = Field(
        default_factory=lambda: run_config_for(current())(),
        description="The run config whose partition to show; partial configs get defaults.",
    )


class PartitionPublic(BaseModel):
    """Clients' sample counts and a clients × classes count matrix of their train
    samples: every client up to `max_clients`, an evenly spaced sample of them above
    (`sampled`); the totals are over every client."""

    n_clients: int
    n_classes: int = Field(description="Columns of `counts` (0: a regression dataset).")
    clients: list[int] = Field(description="The clients shown, ascending ids.")
    sizes: list[int] = Field(description="Train samples of each client shown.")
    test_sizes: list[int] = Field(description="Test samples of each client shown.")
    counts: list[list[int]] = Field(description="Train samples of each class, a row a client.")
    total: int
    smallest: int
    largest: int
    sampled: bool
