"""Error bodies, and the OpenAPI `responses` that document them on each operation."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ErrorPublic(BaseModel):
    """Every error but a validation error: what went wrong, in words."""

    detail: str


class FieldError(BaseModel):
    loc: list[str | int] = Field(
        description='Where: "body", "query", "path" or "header", then the path to the field.'
    )
    msg: str
    type: str


class ValidationErrorPublic(BaseModel):
    """A 422: one entry per invalid field."""

    detail: list[FieldError]


DESCRIPTIONS = {
    400: "The body could not be read as JSON text (e.g. it is not UTF-8)",
    401: "Missing or wrong bearer token",
    404: "No such resource",
    409: "Not possible in the run's current status",
    413: "Request body larger than the server's limit (FEDWATCH_MAX_BODY_BYTES)",
    422: "Invalid input: each error's `loc` names the field",
    503: "The database does not answer just now: nothing was changed; try again after "
    "`Retry-After` seconds",
    507: "The database's disk is full: nothing was changed until space is freed",
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The `responses=` of an operation that can answer with these error statuses."""
    return {
        code: {
            "model": ValidationErrorPublic if code == 422 else ErrorPublic,
            "description": DESCRIPTIONS[code],
        }
        for code in codes
    }


# Every operation whose path names a run, an experiment or a preset.
NOT_FOUND = error_responses(404, 422)
# Operations that take a JSON body.
WITH_BODY = error_responses(400, 413, 422)
