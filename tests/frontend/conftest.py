"""Browser fixtures: Debian's Chromium driven by Playwright, against the front end served
either statically (pure-module tests) or by a real `fedwatch serve` (page tests)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.db.databases import unavailable
from tests.eventually import eventually
from tests.manual_site import build_manual

REPO = Path(__file__).resolve().parents[2]
FRONTEND = REPO / "frontend"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = REPO / "artifacts" / "screenshots"
HTML_NAME = '<a href="http://127.0.0.1:9/phish">Click to re-login</a>'
"""A user's string that Plotly would render as a link if it were not escaped."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        unavailable(f"Chromium not installed at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class _StaticHandler(SimpleHTTPRequestHandler):
    """Serves frontend/ under /static/ and an empty page at / (for importing modules)."""

    def do_GET(self) -> None:
        if self.path == "/":
            body = b"<!doctype html><title>modules</title>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if not self.path.startswith("/static/"):
            self.send_error(404)
            return
        self.path = self.path.removeprefix("/static")
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def static_url() -> Iterator[str]:
    handler = partial(_StaticHandler, directory=str(FRONTEND))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def modules_page(browser: Any, static_url: str) -> Iterator[Any]:
    """A page on the static origin; `js(page, "traces.js", "m => m.ema([1], 0)")`."""
    page = browser.new_page()
    page.goto(static_url + "/")
    yield page
    page.close()


@pytest.fixture
def plotly_page(browser: Any, static_url: str) -> Iterator[Any]:
    """A page on the static origin with the Plotly.js the server hands out."""
    from api.routes.static import PLOTLY_JS

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(static_url + "/")
    page.add_script_tag(path=str(PLOTLY_JS))
    yield page
    page.close()


def js(page: Any, module: str, body: str) -> Any:
    """Import /static/js/<module> in the page and return `(body)(module)`."""
    return page.evaluate(f"async () => ({body})(await import('/static/js/{module}'))")


@contextlib.contextmanager
def serve(tmp: Path, **env_extra: str) -> Iterator[str]:
    """Run `fedwatch serve` (embedded worker, SQLite under `tmp`) on a free port."""
    if shutil.which("fedwatch", path=str(Path(sys.executable).parent)) is None:
        unavailable("the fedwatch command is not installed")
    port = free_port()
    env = {
        **os.environ,
        "FEDWATCH_DATABASE_URL": f"sqlite:///{tmp / 'fedwatch.sqlite3'}",
        "FEDWATCH_EMBEDDED_CONCURRENCY": "2",
    }
    for key in ("FEDWATCH_BROKER_URL", "FEDWATCH_API_TOKEN", "FEDWATCH_PROTECT_READS"):
        env.pop(key, None)
    env.update(env_extra)
    log = (tmp / "serve.log").open("wb")
    cmd = [str(Path(sys.executable).parent / "fedwatch"), "serve", "--host", "127.0.0.1"]
    proc = subprocess.Popen([*cmd, "--port", str(port)], cwd=tmp, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        token = env_extra.get("FEDWATCH_API_TOKEN")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        _wait_healthy(url, proc, tmp / "serve.log", headers)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The dashboard's server for the page tests, shared by the session, with the manual
    built for it (its "?" links lead there)."""
    site = build_manual(tmp_path_factory.mktemp("manual"))
    with serve(tmp_path_factory.mktemp("serve"), FEDWATCH_MANUAL_DIR=str(site)) as url:
        yield url


def _wait_healthy(
    url: str, proc: subprocess.Popen[bytes], log: Path, headers: dict[str, str]
) -> None:
    # Only a server that never answers waits this long: a start took over 60 s under a
    # load of 30 on 2 cores. Warm too: its fork server's imports made, a first submission
    # with a system model waited 8 s for them under a load of 11 (past httpx's 5 s).
    def healthy() -> bool:
        if proc.poll() is not None:
            pytest.fail(f"fedwatch serve exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(httpx.HTTPError):
            answer = httpx.get(f"{url}/healthz", headers=headers, timeout=2)
            return answer.status_code == 200 and answer.json()["warm"] is True
        return False

    def said() -> str:
        return f"fedwatch serve healthy and warm:\n{log.read_text()[-3000:]}"

    eventually(healthy, said, 180, every=0.3)


@pytest.fixture
def page_errors() -> list[str]:
    """Script errors and 404/5xx responses seen by `page`; a test expecting one removes it."""
    return []


@contextlib.contextmanager
def watched_page(browser: Any, server: str, errors: list[str]) -> Iterator[Any]:
    """A fresh 1280-wide page open at `server`, its script errors and 404/5xx responses
    collected in `errors`; anything left there when the block ends fails the test (a
    test expecting one removes it)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.on("pageerror", lambda err: errors.append(str(err)))
    pg.on(
        "console",
        lambda msg: (
            errors.append(msg.text)
            if msg.type == "error" and not msg.text.startswith("Failed to load resource")
            else None
        ),
    )
    pg.on(
        "response",
        lambda r: (
            errors.append(f"{r.status} {r.request.method} {r.url}")
            if r.status == 404 or r.status >= 500
            else None
        ),
    )
    pg.set_default_timeout(15_000)
    pg.goto(server + "/")
    yield pg
    context.close()
    assert not errors, f"browser errors: {errors}"


@pytest.fixture
def page(browser: Any, server: str, page_errors: list[str]) -> Iterator[Any]:
    """A fresh 1280-wide page on the served dashboard; anything left in `page_errors`
    fails the test."""
    with watched_page(browser, server, page_errors) as pg:
        yield pg


def screenshot(page: Any, name: str, full_page: bool = True) -> Path:
    """Save a screenshot under artifacts/screenshots/ (the README copies live in docs/)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path
