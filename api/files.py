"""Files the API answers with (tables, figures, bundles, models): the response, and the
OpenAPI entry that documents its media types."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import Response


def attachment(body: bytes, media_type: str, filename: str) -> Response:
    """`body` as a download named `filename`."""
    return Response(body, media_type=media_type, headers=disposition(filename))


def disposition(filename: str) -> dict[str, str]:
    """A `Content-Disposition` header that keeps a non-ASCII name (RFC 6266)."""
    ascii_name = filename.encode("ascii", "replace").decode().replace('"', "'")
    value = f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename)}"
    return {"Content-Disposition": value}


def file_responses(types: dict[str, str]) -> dict[int | str, dict[str, Any]]:
    """The `responses=` entry of a 200 that is a file of one of `types` (media type →
    what it holds)."""
    return {
        200: {
            "description": "; ".join(f"{kind}: {what}" for kind, what in types.items()),
            "content": {kind: {"schema": {"type": "string", "format": "binary"}} for kind in types},
        }
    }
