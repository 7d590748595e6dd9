"""Reject request bodies above a size limit with 413, before they are read in full.
Model files (`POST /api/runs/{id}/model`) have a limit of their own."""

from __future__ import annotations

import re

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyTooLarge(HTTPException):
    """Raised while the body is read. An HTTPException, because FastAPI passes those on
    (any other error while it reads a body becomes a 400) and answers them itself."""

    def __init__(self, max_bytes: int, setting: str) -> None:
        super().__init__(413, f"request body larger than {max_bytes} bytes ({setting})")


MODEL_PATH = re.compile(r"^/api/runs/[^/]+/model/?$")


class BodySizeLimit:
    """A declared Content-Length past the limit is refused at once; a chunked body is
    counted as it is read, and refused once it passes the limit."""

    def __init__(self, app: ASGIApp, max_bytes: int, max_model_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_model_bytes = max_model_bytes

    def limit(self, scope: Scope) -> tuple[int, str]:
        """The limit of this request's body, and the setting that sets it."""
        if MODEL_PATH.match(scope.get("path", "")):
            return self.max_model_bytes, "FEDWATCH_MAX_MODEL_BYTES"
        return self.max_bytes, "FEDWATCH_MAX_BODY_BYTES"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        max_bytes, setting = self.limit(scope)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_bytes:
            error = BodyTooLarge(max_bytes, setting)
            await JSONResponse({"detail": error.detail}, error.status_code)(scope, receive, send)
            return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > max_bytes:
                    raise BodyTooLarge(max_bytes, setting)
            return message

        await self.app(scope, counting_receive, send)
