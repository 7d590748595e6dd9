"""Runs' final models (`run_models`): stored, read, and their sizes."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import RunModel, utcnow
from db.upsert import upsert


def save_model(session: Session, run_id: int, data: bytes) -> None:
    """Store `data` as the run's model, replacing one stored before."""
    row = {"run_id": run_id, "size": len(data), "data": data, "saved_at": utcnow()}
    upsert(session, RunModel.__table__, row, ["run_id"])  # type: ignore[arg-type]


def load_model(session: Session, run_id: int) -> bytes | None:
    return session.scalar(select(RunModel.data).where(RunModel.run_id == run_id))


def model_size(session: Session, run_id: int) -> int | None:
    """The stored model's size in bytes (None without one), without reading it."""
    return session.scalar(select(RunModel.size).where(RunModel.run_id == run_id))
