"""A run's statuses: the one list, which of them are active, final and resumable, and
the status a run shows. The API serves this table (`GET /api/meta`) and the browser
reads it from there."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum


class Status(StrEnum):
    """In lifecycle order. `stalled` is shown, never stored: a running external run
    whose code went silent (`shown`)."""

    QUEUED = "queued"
    RUNNING = "running"
    STALLED = "stalled"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


STORED = tuple(s for s in Status if s is not Status.STALLED)
ACTIVE = (Status.QUEUED, Status.RUNNING, Status.STALLED)
FINAL = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)
# From these `POST /api/runs/{id}/resume` queues a simulated run again.
RESUMABLE = (Status.FAILED, Status.CANCELLED)
DESCRIPTIONS = {
    Status.QUEUED: "waiting for an executor",
    Status.RUNNING: "executing, or an external run taking its rounds",
    Status.STALLED: "an external run whose code sent nothing for a while",
    Status.SUCCEEDED: "finished every round",
    Status.FAILED: "stopped by an error; a simulated one resumes from its checkpoint",
    Status.CANCELLED: "stopped on request; a simulated one resumes from its checkpoint",
}


def shown(
    status: str, external: bool, heartbeat_at: datetime | None, now: datetime, stall_s: float
) -> Status:
    """The status a run shows: its own, or `stalled` for a running external run silent
    for more than `stall_s` seconds."""
    silent = heartbeat_at is not None and (now - heartbeat_at).total_seconds() > stall_s
    if external and status == Status.RUNNING and silent:
        return Status.STALLED
    return Status(status)


def table() -> list[dict[str, object]]:
    """Every status with its flags, in lifecycle order: what the browser reads."""
    return [
        {
            "name": s.value,
            "description": DESCRIPTIONS[s],
            "stored": s in STORED,
            "active": s in ACTIVE,
            "final": s in FINAL,
            "resumable": s in RESUMABLE,
        }
        for s in Status
    ]
