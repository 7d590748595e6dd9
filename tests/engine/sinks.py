"""Sinks for engine tests."""

from __future__ import annotations

from typing import Any

from worker.engine import ListSink


class CheckpointsSink(ListSink):
    """Keeps every checkpoint offered, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.checkpoints: list[dict[str, Any]] = []

    def on_checkpoint(self, state: dict[str, Any]) -> None:
        super().on_checkpoint(state)
        self.checkpoints.append(state)
