"""The runs' standings (speed, queue position, ETA: `db.progress`) as the API shows them."""

from __future__ import annotations

from dataclasses import asdict
from typing import TypeVar

from sqlalchemy.orm import Session

from api.schemas.runs import RunItem
from db.models import Run
from db.progress import Board, standings
from db.settings import Settings

Item = TypeVar("Item", bound=RunItem)


def board(session: Session, settings: Settings) -> Board:
    """The standings of the active runs on this server: the embedded one executes
    `embedded_concurrency` runs at once; with a broker, the workers are not known here."""
    slots = settings.embedded_concurrency if settings.broker_url is None else None
    return standings(session, slots)


def with_standing(item: Item, run: Run, on: Board) -> Item:
    """`item` (a run as the API shows it) with the run's speed, queue position and ETA."""
    return item.model_copy(update=asdict(on.of(run.id, run.status, run.summary)))
