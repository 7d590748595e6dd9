"""Reject request bodies above a size limit with 413, before they are read in full."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyTooLarge(HTTPException):
    """Raised while the body is read. An HTTPException, because FastAPI passes those on
    (any other error while it reads a body becomes a 400) and answers them itself."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, f"request body larger than {max_bytes} bytes")


class BodySizeLimit:
    """A declared Content-Length past the limit is refused at once; a chunked body is
    counted as it is read, and refused once it passes the limit."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._reject(scope, receive, send)
            return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        await self.app(scope, counting_receive, send)

    async def _reject(self, scope: Scope, receive: Receive, send: Send) -> None:
        error = BodyTooLarge(self.max_bytes)
        await JSONResponse({"detail": error.detail}, error.status_code)(scope, receive, send)
