"""What JSON or the database cannot hold is a 422 in every body: NaN, ±Infinity and the
NUL character.

Python's JSON parser accepts `NaN`, `Infinity` and literals such as `1e999` that overflow
to infinity. Stored, they would come back as `null` (or break the database's JSON type),
so a copied config would no longer post. Postgres text cannot hold U+0000: a name or note
with it would fail at the database. This is checked once, on the parsed body, before the
route's own validation: free-form JSON (an experiment's `base` and `grid`) included.
Query strings are declared with `api.deps.NO_NUL` instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

NON_FINITE = "Input should be a finite number"
NUL = "Input should not contain the NUL character (U+0000)"


def unstorable(value: Any, loc: tuple[str | int, ...]) -> Iterator[dict[str, Any]]:
    """An error for each non-finite number, and each string or key with a NUL, in a
    parsed JSON value."""
    if isinstance(value, float) and not math.isfinite(value):
        yield {"loc": list(loc), "msg": NON_FINITE, "type": "finite_number"}
    elif isinstance(value, str) and "\x00" in value:
        yield {"loc": list(loc), "msg": NUL, "type": "string_nul"}
    elif isinstance(value, dict):
        for key, item in value.items():
            if "\x00" in key:
                yield {"loc": [*loc, key], "msg": NUL, "type": "string_nul"}
            yield from unstorable(item, (*loc, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from unstorable(item, (*loc, index))


async def reject_unstorable(request: Request) -> None:
    """A dependency: 422 naming every value of the JSON body that cannot be stored, on
    every route that reads a body."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute) or route.body_field is None or not await request.body():
        return
    try:
        body = await request.json()  # parsed once: the route reads the same cached value
    except ValueError:
        return  # not JSON: the route's own validation answers
    errors = list(unstorable(body, ("body",)))
    if errors:
        raise RequestValidationError(errors)
