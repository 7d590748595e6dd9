"""The manual (MkDocs, built by `make docs` into `FEDWATCH_MANUAL_DIR`) under /manual,
offline; before it is built, a page that says how to build it."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse

from api.headers import MANUAL_CONTENT_SECURITY_POLICY
from worker.engine import inside, is_dir, is_file

router = APIRouter(include_in_schema=False)
POLICY = {"Content-Security-Policy": MANUAL_CONTENT_SECURITY_POLICY}

NOT_BUILT = """<!doctype html><title>FedWatch manual</title>
<h1>The manual is not built</h1>
<p>Run <code>make docs</code> (or <code>mkdocs build</code>) in the repository, then reload.
<code>make run</code> builds it before it starts the server.</p>"""


@router.get("/manual")
def manual_root() -> Response:
    return RedirectResponse("/manual/", status_code=307)


@router.api_route("/manual/{path:path}", methods=["GET", "HEAD"])
def manual_page(path: str, request: Request) -> Response:
    """A page or asset of the manual: `x/` is `x/index.html`; a path that leaves the
    manual, or names nothing in it (a NUL, a name too long for a file), is a 404 (its page
    when the manual has one)."""
    root: Path = request.app.state.settings.manual_dir.resolve()
    if not (root / "index.html").is_file():
        return HTMLResponse(NOT_BUILT, status_code=404)
    target = inside(root, path)
    if target is not None and is_dir(target):
        target = target / "index.html"
    if target is not None and is_file(target):
        return FileResponse(target, headers=POLICY)
    if (root / "404.html").is_file():
        return FileResponse(root / "404.html", status_code=404, headers=POLICY)
    raise HTTPException(404, f"{path!r} is not in the manual")
