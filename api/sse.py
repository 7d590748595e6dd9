"""Server-sent events of one run: new rounds as they land, status on every change."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from api.schemas.runs import RunItem
from db.metrics import round_rows
from db.models import FINAL_STATUSES, Run

BATCH = 500


def event(kind: str, data: dict[str, Any], event_id: int | None = None) -> str:
    head = f"event: {kind}\n" + (f"id: {event_id}\n" if event_id is not None else "")
    return f"{head}data: {json.dumps(data, separators=(',', ':'))}\n\n"


def run_events(
    sessions: sessionmaker[Session], run_id: int, after: int, poll_s: float
) -> Iterator[str]:
    """Rounds after `after` (the Last-Event-ID), then each new one; ends once the run
    is final and every round has been sent."""
    shown: tuple[str, int] | None = None
    while True:
        with sessions() as session:
            run = session.get(Run, run_id)
            if run is None:
                return
            status = RunItem.model_validate(run).model_dump(mode="json")
            rows = round_rows(session, run_id, after, BATCH)
        for row in rows:
            yield event("round", row, row["round"])
            after = row["round"]
        if (status["status"], status["rounds_done"]) != shown:
            shown = (status["status"], status["rounds_done"])
            yield event("status", status)
        if len(rows) == BATCH:
            continue
        if status["status"] in FINAL_STATUSES:
            return
        time.sleep(poll_s)
