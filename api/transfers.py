"""Model files go in and out a part at a time; at most `FEDWATCH_MODEL_TRANSFERS` of
them at once, each holding about one part (`db.run_models.PART_BYTES`) in memory. A
transfer past the limit is refused at once with a 503 and `Retry-After`, not queued: a
queued one would hold its connection, and an upload its body, while it waits."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import HTTPException
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

RETRY_AFTER_S = 2


class Transfers:
    """The model transfers under way. Used from the event loop alone, so a count is
    enough: nothing else changes it between a test and its increment."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0

    def enter(self) -> None:
        """Count a transfer in; a 503 past the limit."""
        if self.active >= self.limit:
            raise HTTPException(
                503,
                f"{self.limit} model files are being sent or received "
                "(FEDWATCH_MODEL_TRANSFERS); try again shortly",
                {"Retry-After": str(RETRY_AFTER_S)},
            )
        self.active += 1

    def leave(self) -> None:
        self.active -= 1

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        self.enter()
        try:
            yield
        finally:
            self.leave()


class ClosingStream(StreamingResponse):
    """A streamed response that calls `on_close` once it is over, sent or not (a client
    that goes away before the first part never starts the body's iterator)."""

    def __init__(
        self,
        content: AsyncIterator[bytes],
        media_type: str,
        headers: dict[str, str],
        on_close: Callable[[], None],
    ) -> None:
        super().__init__(content, media_type=media_type, headers=headers)
        self.on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.on_close()
