"""Security headers on every response: a Content-Security-Policy that the pages satisfy
(scripts only from this server, none inline), no MIME sniffing, no framing.

Scripts may compile code (`'unsafe-eval'`): Plotly draws parallel coordinates with
WebGL through regl, which builds its draw commands with `Function`; without it the
compare page's parallel coordinates show "WebGL is not supported". No inline script,
no event-handler attribute and no script from elsewhere runs.
Styles may be inline: Plotly, Swagger UI and ReDoc set them on the elements they draw.
Images may be `data:` and `blob:` URLs (the page's empty icon, Plotly's PNG download);
ReDoc indexes its search in a worker made from a `blob:` URL.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'unsafe-eval'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
# The manual (MkDocs' Material theme) sets its scope and palette in inline scripts of its
# own pages: they run there, and nowhere else.
MANUAL_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace(
    "script-src 'self'", "script-src 'self' 'unsafe-inline'"
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


class SecurityHeaders:
    """Adds `HEADERS` to every HTTP response, streamed ones included, without buffering."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, with_headers)
