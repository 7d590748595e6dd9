"""The API docs: Swagger UI at `/docs` and ReDoc at `/redoc`, their scripts, styles and
icon served from the fastapi-offline package (as Plotly is from plotly), so the docs
render without internet."""

from __future__ import annotations

import html
from pathlib import Path

import fastapi_offline
from fastapi import APIRouter, HTTPException, Request
from fastapi.openapi.docs import get_redoc_html
from fastapi.responses import FileResponse, HTMLResponse

router = APIRouter(include_in_schema=False)

ASSETS = Path(fastapi_offline.__file__).parent / "static"
MEDIA_TYPES = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}
VENDOR = "/vendor/docs"


def _openapi_url(request: Request) -> str:
    url: str = request.app.openapi_url
    return url


SWAGGER_UI = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} - Swagger UI</title>
<link rel="stylesheet" href="{vendor}/swagger-ui.css">
<link rel="icon" href="{vendor}/favicon.png">
</head>
<body>
<div id="swagger-ui" data-openapi-url="{openapi_url}"></div>
<script src="{vendor}/swagger-ui-bundle.js"></script>
<script src="/static/docs/swagger.js"></script>
</body>
</html>
"""


@router.get("/docs")
def swagger_ui(request: Request) -> HTMLResponse:
    """Swagger UI, started by a script file of the front end (`frontend/docs/swagger.js`),
    not an inline one: the Content-Security-Policy allows none (`api.headers`)."""
    page = SWAGGER_UI.format(
        title=html.escape(request.app.title),
        vendor=VENDOR,
        openapi_url=html.escape(_openapi_url(request)),
    )
    return HTMLResponse(page)


@router.get("/redoc")
def redoc(request: Request) -> HTMLResponse:
    """ReDoc starts by itself on its `<redoc>` element: no inline script."""
    return get_redoc_html(
        openapi_url=_openapi_url(request),
        title=f"{request.app.title} - ReDoc",
        redoc_js_url=f"{VENDOR}/redoc.standalone.js",
        redoc_favicon_url=f"{VENDOR}/favicon.png",
        with_google_fonts=False,
    )


@router.get(VENDOR + "/{name}")
def asset(name: str) -> FileResponse:
    media_type = MEDIA_TYPES.get(name)
    if media_type is None:
        raise HTTPException(404, f"{name!r} not found")
    return FileResponse(ASSETS / name, media_type=media_type)
