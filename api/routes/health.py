"""`/healthz`: the database and the broker answer."""

from __future__ import annotations

from fastapi import APIRouter, Response
from sqlalchemy import text

from api.deps import DispatcherDep, SessionDep

router = APIRouter(tags=["health"])


@router.get(
    "/healthz",
    responses={503: {"description": "The database or the broker does not answer"}},
)
def healthz(session: SessionDep, dispatcher: DispatcherDep, response: Response) -> dict[str, str]:
    try:
        session.execute(text("SELECT 1"))
        database = "ok"
    except Exception as err:
        database = f"error: {type(err).__name__}"
    broker = dispatcher.ping()
    healthy = database == "ok" and broker in ("ok", "embedded")
    response.status_code = 200 if healthy else 503
    return {"status": "ok" if healthy else "error", "database": database, "broker": broker}
