"""The front end: index page, its static files, and Plotly from the Python package."""

from __future__ import annotations

from pathlib import Path

import plotly
from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse

from api.deps import SettingsDep

router = APIRouter(include_in_schema=False)

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


@router.get("/")
def index(settings: SettingsDep) -> FileResponse:
    page = settings.frontend_dir / "index.html"
    if not page.is_file():
        raise HTTPException(404, "front end not found")
    return FileResponse(page, media_type="text/html")


@router.get("/vendor/plotly.min.js")
def plotly_js() -> FileResponse:
    return FileResponse(PLOTLY_JS, media_type="text/javascript")
