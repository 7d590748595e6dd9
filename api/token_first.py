"""The bearer token checked before a request's body is read.

FastAPI reads a route's body before it solves the route's dependencies, so the token
check (`api.deps.check_token`) alone would answer a request without the token only
once its whole body had arrived: megabytes read, and held, for a 401. This middleware
runs that same check first, on the headers, for every route of the routers the app
includes with that check (`api.main.API_ROUTERS`), and answers 401 without reading a
byte of the body. The routes' own dependency stays, as the check's documentation in
the OpenAPI schema and for a request that reaches a route some other way.
"""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import APIRouter, HTTPException, Request
from starlette.responses import JSONResponse
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from api.deps import check_token, get_settings


class TokenFirst:
    """Answers 401 to a request without the token before its body is read."""

    def __init__(self, app: ASGIApp, routers: Sequence[APIRouter]) -> None:
        self.app = app
        self.routes = [route for router in routers for route in router.routes]

    def needs_token(self, scope: Scope) -> bool:
        """Whether this request reaches a route of the protected routers."""
        return any(route.matches(scope)[0] == Match.FULL for route in self.routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.needs_token(scope):
            request = Request(scope)  # headers only: no `receive`, so no body
            try:
                check_token(request, get_settings(request))
            except HTTPException as refused:
                answer = JSONResponse({"detail": refused.detail}, refused.status_code,
                                      refused.headers)  # fmt: skip
                await answer(scope, receive, send)
                return
        await self.app(scope, receive, send)
