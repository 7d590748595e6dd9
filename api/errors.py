"""422 responses whose `loc` points at the offending field, also for cross-field checks,
405 responses that list every method of the path, and 503 or 507 with the reason when
the database does not answer or its disk is full.

RunConfig's model validators raise "Value error, algorithm.participation: ..." at the
level of the whole config; the dotted path at the start of the message is moved into
`loc` so clients can attach the message to the right form field. `POST /api/runs` reads
one of two kinds of body: the kind's tag that pydantic puts in `loc` is dropped.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException
from starlette.routing import Match

from api.schemas.runs import BODY_TAGS
from db.retry import describe, is_disk_full, is_transient

log = logging.getLogger(__name__)

PATH_PREFIX = re.compile(r"^(?:Value error, )?([a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)*): (.*)$", re.S)


def with_field_path(error: Mapping[str, Any]) -> dict[str, Any]:
    loc = list(error.get("loc", ()))
    if loc[:1] == ["body"] and len(loc) > 1 and loc[1] in BODY_TAGS:
        del loc[1]  # which kind of body was read, not a field of it
    match = PATH_PREFIX.match(str(error.get("msg", "")))
    if match is None:
        return {**error, "loc": loc}
    path, message = match.groups()
    return {**error, "loc": [*loc, *path.split(".")], "msg": message}


# A 422 lists at most this many errors, then says how many more there are: a body of a
# megabyte can hold 90 000 unknown keys, and a list of them all helps nobody.
SHOWN_ERRORS = 100


async def validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    detail = [with_field_path(dict(e)) for e in errors[:SHOWN_ERRORS]]
    for e in detail:
        e.pop("ctx", None)
        e.pop("input", None)
    if len(errors) > SHOWN_ERRORS:
        more = f"{len(errors) - SHOWN_ERRORS} more errors, not listed"
        detail.append({"loc": ["body"], "msg": more, "type": "too_many_errors"})
    return JSONResponse({"detail": jsonable_encoder(detail)}, status_code=422)


METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


async def method_not_allowed(request: Request, exc: Exception) -> JSONResponse:
    """`Allow` names every method of the path (Starlette names only those of the first
    route that matched, e.g. POST for `/api/runs`, which also has GET)."""
    assert isinstance(exc, HTTPException)
    allowed = [
        method
        for method in METHODS
        if any(
            route.matches({**request.scope, "method": method})[0] is Match.FULL
            for route in request.app.routes
        )
    ]
    headers = {"Allow": ", ".join(allowed)}
    return JSONResponse({"detail": exc.detail}, status_code=405, headers=headers)


# What a client waits before it tries again when the database does not answer: a
# restart or a failover takes seconds.
RETRY_AFTER_S = 5
UNREACHABLE = "the database is unreachable just now: nothing was changed; try again later"


async def database_error(request: Request, exc: Exception) -> JSONResponse:
    """A database that is away, busy past its timeout, or out of disk space is no fault of
    the request: 503 (with `Retry-After`) or 507. Other database errors stay server
    errors. A 503 says only that the database is unreachable: the driver's message names
    its host and port, which the server's log keeps and no reader needs."""
    assert isinstance(exc, DBAPIError)
    if is_disk_full(exc):
        detail = (
            f"the database's disk is full ({describe(exc)}): nothing was changed; "
            "free space on the server, then send this again"
        )
        return JSONResponse({"detail": detail}, status_code=507)
    if is_transient(exc):
        where = f"{request.method} {request.url.path}"
        log.warning("%s: the database does not answer (%s)", where, describe(exc))
        headers = {"Retry-After": str(RETRY_AFTER_S)}
        return JSONResponse({"detail": UNREACHABLE}, status_code=503, headers=headers)
    raise exc


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(405, method_not_allowed)
    app.add_exception_handler(DBAPIError, database_error)
