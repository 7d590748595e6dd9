"""The API docs: Swagger UI at `/docs` and ReDoc at `/redoc`, their scripts, styles and
icon served from the fastapi-offline package (as Plotly is from plotly), so the docs
render without internet."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import APIRouter, HTTPException, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
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


@router.get("/docs")
def swagger_ui(request: Request) -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url=_openapi_url(request),
        title=f"{request.app.title} - Swagger UI",
        swagger_js_url=f"{VENDOR}/swagger-ui-bundle.js",
        swagger_css_url=f"{VENDOR}/swagger-ui.css",
        swagger_favicon_url=f"{VENDOR}/favicon.png",
    )


@router.get("/redoc")
def redoc(request: Request) -> HTMLResponse:
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
