"""Runs' final models (`run_models`, their bytes in `run_model_parts`): stored and read
a part at a time, and their sizes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from db.models import RunModel, RunModelPart, utcnow
from db.upsert import upsert

PART_BYTES = 1 << 20  # a model's bytes per stored part: what a transfer holds at once


@dataclass(frozen=True)
class StoredModel:
    """A stored model's size and when it was saved (which tells its parts from those of
    a model stored in its place since)."""

    size: int
    saved_at: datetime

    @property
    def parts(self) -> int:
        return -(-self.size // PART_BYTES)


def save_model(session: Session, run_id: int, data: bytes) -> None:
    """Store `data` as the run's model, replacing one stored before."""
    parts = (data[at : at + PART_BYTES] for at in range(0, len(data), PART_BYTES))
    store_parts(session, run_id, len(data), parts)


def store_parts(session: Session, run_id: int, size: int, parts: Iterable[bytes]) -> None:
    """Store the run's model of `size` bytes from `parts`, each `PART_BYTES` long but the
    last, replacing one stored before; a part is written as it comes."""
    row = {"run_id": run_id, "size": size, "saved_at": utcnow()}
    upsert(session, RunModel.__table__, row, ["run_id"])  # type: ignore[arg-type]
    session.execute(delete(RunModelPart).where(RunModelPart.run_id == run_id))
    for seq, data in enumerate(parts):
        session.execute(insert(RunModelPart).values(run_id=run_id, seq=seq, data=data))


def stored_model(session: Session, run_id: int) -> StoredModel | None:
    """The run's stored model's size and time (None without one), without its bytes."""
    row = session.execute(
        select(RunModel.size, RunModel.saved_at).where(RunModel.run_id == run_id)
    ).first()
    return None if row is None else StoredModel(row.size, row.saved_at)


def model_part(session: Session, run_id: int, seq: int, model: StoredModel) -> bytes | None:
    """Part `seq` of the run's model `model`; None once another model replaced it."""
    query = (
        select(RunModelPart.data)
        .join(RunModel, RunModel.run_id == RunModelPart.run_id)
        .where(RunModelPart.run_id == run_id, RunModelPart.seq == seq)
        .where(RunModel.saved_at == model.saved_at)
    )
    return session.scalar(query)


def model_size(session: Session, run_id: int) -> int | None:
    """The stored model's size in bytes (None without one), without reading it."""
    return session.scalar(select(RunModel.size).where(RunModel.run_id == run_id))
