"""`/healthz`: the database and the broker answer, and the database's disk has room."""

from __future__ import annotations

import shutil
from pathlib import Path

from fastapi import APIRouter, Response
from sqlalchemy import text
from sqlalchemy.engine import make_url

from api.deps import DispatcherDep, SessionDep, SettingsDep
from worker import child

router = APIRouter(tags=["health"])


def disk_free_mb(database_url: str) -> float | None:
    """Free space on the disk of a SQLite database file, in MiB; None for a server
    database (its disk is the server's) or an in-memory one."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    folder = Path(url.database).resolve().parent
    return round(shutil.disk_usage(folder).free / 2**20, 1)


UNHEALTHY = "The database or the broker does not answer, or the database's disk is nearly full"


@router.get("/healthz", responses={503: {"description": UNHEALTHY}})
def healthz(
    session: SessionDep, dispatcher: DispatcherDep, settings: SettingsDep, response: Response
) -> dict[str, str | float | bool | None]:
    """`database`: `ok` or the error; `disk_free_mb`: free space on the disk of a SQLite
    database file (null for a database server); `warm`: the fork server that runs and
    system-model checks start from has made its imports (the server warms it at start:
    until then a first run, or a first submission with a system model, waits
    seconds for them)."""
    try:
        session.execute(text("SELECT 1"))
        database = "ok"
    except Exception as err:
        database = f"error: {type(err).__name__}"
    free = disk_free_mb(settings.database_url)
    if database == "ok" and free is not None and free < settings.min_free_disk_mb:
        database = f"error: {free:.1f} MiB free on its disk"
    broker = dispatcher.ping()
    healthy = database == "ok" and broker in ("ok", "embedded")
    response.status_code = 200 if healthy else 503
    status = "ok" if healthy else "error"
    return {
        "status": status,
        "database": database,
        "disk_free_mb": free,
        "broker": broker,
        "warm": child.WARM.is_set(),
    }
