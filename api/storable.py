"""What JSON or the database cannot hold is a 422 in every body: NaN, ±Infinity, the NUL
character, and values nested deeper than `MAX_DEPTH`.

Python's JSON parser accepts `NaN`, `Infinity` and literals such as `1e999` that overflow
to infinity. Stored, they would come back as `null` (or break the database's JSON type),
so a copied config would no longer post. Postgres text cannot hold U+0000: a name or note
with it would fail at the database. A value nested hundreds of levels deep parses, but
copying, validating or serialising it recurses once per level: past Python's and
pydantic's limits it fails, and once stored it would fail every read that returns it.
This is checked once, on the parsed body, before the route's own validation: free-form
JSON (an experiment's `base` and `grid`, an external run's config) included. Query
strings and the bodies' text fields also declare it (`NO_NUL`), so the schema says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

# Levels of arrays and objects in a body, the body itself the first: a run config uses 4,
# an ingest batch 4; free-form configs get room to spare.
MAX_DEPTH = 32
NON_FINITE = "Input should be a finite number"
NUL = "Input should not contain the NUL character (U+0000)"
# The pattern that declares it in the schema, for query strings and the body's strings
# that reach the database.
NO_NUL = r"^[^\x00]*$"
TOO_DEEP = f"Input should be nested at most {MAX_DEPTH} levels deep"

Loc = tuple[str | int, ...]


def unstorable(value: Any, loc: Loc) -> Iterator[dict[str, Any]]:
    """An error for each non-finite number, each string or key with a NUL, and the first
    array or object nested past `MAX_DEPTH`, in a parsed JSON value, in document order.
    Walks the value with a stack of its own, so no depth reaches Python's recursion
    limit, and checks scalars where it meets them (a batch holds 10^5 of them)."""
    yield from _scalar(value, loc)
    if not isinstance(value, dict | list):
        return
    stack: list[tuple[Iterator[tuple[str | int, Any]], Loc]] = [(_items(value), loc)]
    too_deep = False
    while stack:
        items, at = stack[-1]
        for key, item in items:
            if isinstance(key, str) and "\x00" in key:
                yield {"loc": [*at, key], "msg": NUL, "type": "string_nul"}
            if not isinstance(item, dict | list):
                yield from _scalar(item, (*at, key))
            elif len(stack) < MAX_DEPTH:
                stack.append((_items(item), (*at, key)))
                break
            elif not too_deep:
                too_deep = True
                yield {"loc": [*at, key], "msg": TOO_DEEP, "type": "too_deep"}
        else:
            stack.pop()


def _items(value: dict[str, Any] | list[Any]) -> Iterator[tuple[str | int, Any]]:
    return iter(value.items()) if isinstance(value, dict) else enumerate(value)


def _scalar(value: Any, at: Loc) -> Iterator[dict[str, Any]]:
    if isinstance(value, float) and not math.isfinite(value):
        yield {"loc": list(at), "msg": NON_FINITE, "type": "finite_number"}
    elif isinstance(value, str) and "\x00" in value:
        yield {"loc": list(at), "msg": NUL, "type": "string_nul"}


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
