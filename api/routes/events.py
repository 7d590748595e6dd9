"""`GET /api/runs/{id}/events`: the live stream of a run."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header
from fastapi.responses import StreamingResponse

from api.deps import RunDep, SessionsDep, SettingsDep
from api.sse import run_events

router = APIRouter(prefix="/api/runs/{run_id}", tags=["events"])


@router.get("/events", response_class=StreamingResponse)
def stream_events(
    run: RunDep,
    sessions: SessionsDep,
    settings: SettingsDep,
    last_event_id: Annotated[int | None, Header()] = None,
) -> StreamingResponse:
    """`event: round` (id = round) per new round, `event: status` on each change;
    resumes after `Last-Event-ID`."""
    after = -1 if last_event_id is None else last_event_id
    stream = run_events(sessions, run.id, after, settings.sse_poll_s)
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream, media_type="text/event-stream", headers=headers)
