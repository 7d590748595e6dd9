"""`GET /api/runs/{id}/events`: the live stream of a run."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request
from fastapi.responses import StreamingResponse

from api.deps import Id, SessionsDep, get_run
from api.live import LiveFeed
from api.schemas.errors import NOT_FOUND
from fedwatch.limits import INT32_MAX

router = APIRouter(prefix="/api/runs/{run_id}", tags=["events"], responses=NOT_FOUND)


@router.get(
    "/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "The event stream"}},
)
def stream_events(
    run_id: Id,
    sessions: SessionsDep,
    request: Request,
    last_event_id: Annotated[int, Header(ge=-1, le=INT32_MAX)] = -1,
) -> StreamingResponse:
    """`event: round` (id = round) per new round, `event: status` on each change;
    resumes after `Last-Event-ID`. The stream holds no database connection: the
    process's live feed reads for all its streams."""
    with sessions() as session:  # closed before streaming starts
        get_run(run_id, session)
    feed: LiveFeed = request.app.state.feed
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(
        feed.stream(run_id, last_event_id), media_type="text/event-stream", headers=headers
    )
