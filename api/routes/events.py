"""`GET /api/runs/{id}/events`: the live stream of a run."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, HTTPException, Request
from fastapi.responses import StreamingResponse

from api.deps import SessionsDep
from api.live import LiveFeed
from db.models import Run

router = APIRouter(prefix="/api/runs/{run_id}", tags=["events"])


@router.get("/events", response_class=StreamingResponse)
def stream_events(
    run_id: int,
    sessions: SessionsDep,
    request: Request,
    last_event_id: Annotated[int | None, Header()] = None,
) -> StreamingResponse:
    """`event: round` (id = round) per new round, `event: status` on each change;
    resumes after `Last-Event-ID`. The stream holds no database connection: the
    process's live feed reads for all its streams."""
    with sessions() as session:  # closed before streaming starts
        if session.get(Run, run_id) is None:
            raise HTTPException(404, f"run {run_id} not found")
    after = -1 if last_event_id is None else last_event_id
    feed: LiveFeed = request.app.state.feed
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(
        feed.stream(run_id, after), media_type="text/event-stream", headers=headers
    )
