"""The front end: index page, its static files, and Plotly from the Python package, served
by `api.assets` (versioned URLs, gzip, caching)."""

from __future__ import annotations

from pathlib import Path

import plotly
from fastapi import APIRouter, HTTPException, Request, Response

from api.assets import IMMUTABLE, REVALIDATE, Assets, respond

router = APIRouter(include_in_schema=False)

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def _assets(request: Request) -> Assets:
    assets: Assets = request.app.state.assets
    return assets


@router.api_route("/", methods=["GET", "HEAD"])
def index(request: Request) -> Response:
    assets = _assets(request)
    if not (assets.root / "index.html").is_file():
        raise HTTPException(404, "front end not found")
    return respond(request, assets.index(), REVALIDATE)


@router.api_route("/static/{path:path}", methods=["GET", "HEAD"])
def static_file(path: str, request: Request) -> Response:
    """A front-end file; under `/static/v-<version>/` cached for a year where the version
    is the current one."""
    assets = _assets(request)
    found = assets.file(path)
    if found is None:
        raise HTTPException(404, f"{path!r} not found")
    file, current = found
    return respond(request, assets.files.get(file), IMMUTABLE if current else REVALIDATE)


@router.api_route("/vendor/plotly.min.js", methods=["GET", "HEAD"])
def plotly_js(request: Request, v: str = "") -> Response:
    assets = _assets(request)
    current = v == assets.plotly_version
    return respond(
        request, assets.files.get(assets.plotly_js), IMMUTABLE if current else REVALIDATE
    )
