"""The one callback through which a run's progress leaves the engine."""

from __future__ import annotations

from typing import Any, Protocol

from worker.engine.records import RoundRecord


class Sink(Protocol):
    """Receives each finished round, and every few rounds the engine's state. Records and
    states are snapshots: the engine never changes them afterwards, so a sink may keep
    them and write them later."""

    def on_round(self, record: RoundRecord) -> None: ...

    def on_checkpoint(self, state: dict[str, Any]) -> None: ...


class ListSink:
    """Keeps every record and the latest checkpoint in memory."""

    def __init__(self) -> None:
        self.records: list[RoundRecord] = []
        self.checkpoint: dict[str, Any] | None = None

    def on_round(self, record: RoundRecord) -> None:
        self.records.append(record)

    def on_checkpoint(self, state: dict[str, Any]) -> None:
        self.checkpoint = state
