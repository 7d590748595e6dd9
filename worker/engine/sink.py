"""The one callback through which a run's progress leaves the engine."""

from __future__ import annotations

from typing import Any, Protocol

from worker.engine.artifact import ModelFile
from worker.engine.records import RoundRecord


class Sink(Protocol):
    """Receives each finished round, every few rounds the engine's state, and once the
    run completes its final global model. Records, states and the model are snapshots:
    the engine never changes them afterwards, so a sink may keep them and write them
    later."""

    def on_round(self, record: RoundRecord) -> None: ...

    def on_checkpoint(self, state: dict[str, Any]) -> None: ...

    def on_model(self, model: ModelFile) -> None: ...


class ListSink:
    """Keeps every record, the latest checkpoint and the final model in memory."""

    def __init__(self) -> None:
        self.records: list[RoundRecord] = []
        self.checkpoint: dict[str, Any] | None = None
        self.model: ModelFile | None = None

    def on_round(self, record: RoundRecord) -> None:
        self.records.append(record)

    def on_checkpoint(self, state: dict[str, Any]) -> None:
        self.checkpoint = state

    def on_model(self, model: ModelFile) -> None:
        self.model = model
