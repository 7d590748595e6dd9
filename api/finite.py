"""NaN and ±Infinity are not JSON: a body that holds one is a 422 on every route.

Python's JSON parser accepts `NaN`, `Infinity` and literals such as `1e999` that overflow
to infinity. Stored, they would come back as `null` (or break the database's JSON type),
so a copied config would no longer post. This is checked once, on the parsed body, before
the route's own validation: free-form JSON (an experiment's `base` and `grid`) included.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute


def non_finite(value: Any, loc: tuple[str | int, ...]) -> Iterator[tuple[str | int, ...]]:
    """The paths of the non-finite numbers in a parsed JSON value."""
    if isinstance(value, float) and not math.isfinite(value):
        yield loc
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from non_finite(item, (*loc, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from non_finite(item, (*loc, index))


async def reject_non_finite(request: Request) -> None:
    """A dependency: 422 naming every NaN or infinite number of the JSON body, on every
    route that reads a body."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute) or route.body_field is None or not await request.body():
        return
    try:
        body = await request.json()  # parsed once: the route reads the same cached value
    except ValueError:
        return  # not JSON: the route's own validation answers
    errors = [
        {"loc": list(loc), "msg": "Input should be a finite number", "type": "finite_number"}
        for loc in non_finite(body, ("body",))
    ]
    if errors:
        raise RequestValidationError(errors)
