"""The front end's files: versioned URLs that follow an edit, cached for good only under
the current version, gzip where accepted, 304 on a known ETag, nothing outside the folder."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.assets import Assets, accepts_gzip
from api.routes import static

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
IMMUTABLE = "public, max-age=31536000, immutable"
PAGE = """<!doctype html><html><head>
<link rel="stylesheet" href="/static/css/app.css">
<meta name="fedwatch-plotly" content="/vendor/plotly.min.js">
<script type="module" src="/static/js/app.js"></script>
</head><body></body></html>"""


@pytest.fixture
def frontend(tmp_path: Path) -> Path:
    root = tmp_path / "frontend"
    (root / "js").mkdir(parents=True)
    (root / "css").mkdir()
    (root / "index.html").write_text(PAGE)
    (root / "js" / "app.js").write_text('import "./big.js";\n')
    (root / "js" / "big.js").write_text("export const x = 1;\n" * 200)
    (root / "css" / "app.css").write_text("body { margin: 0; }\n")
    (tmp_path / "secret.txt").write_text("not served")
    return root


def client_for(root: Path) -> TestClient:
    app = FastAPI()
    app.include_router(static.router)
    app.state.assets = Assets(root, static.PLOTLY_JS)
    return TestClient(app)


def version(client: TestClient) -> str:
    found = re.search(r'src="/static/v-([0-9a-f]{12})/js/app\.js"', client.get("/").text)
    assert found
    return found.group(1)


def test_the_page_names_versioned_urls_and_preloads_the_modules(frontend: Path) -> None:
    client = client_for(frontend)
    page = client.get("/").text
    v = version(client)
    assert f'href="/static/v-{v}/css/app.css"' in page
    assert f'<link rel="modulepreload" href="/static/v-{v}/js/big.js">' in page
    assert page.count("js/app.js") == 1  # the entry module is not preloaded twice
    plotly = re.search(r'content="/vendor/plotly\.min\.js\?v=([0-9a-f]{12})"', page)
    assert plotly
    cached = client.get(f"/vendor/plotly.min.js?v={plotly.group(1)}")
    assert cached.headers["cache-control"] == IMMUTABLE


def test_an_edited_file_changes_the_version(frontend: Path) -> None:
    client = client_for(frontend)
    old = version(client)
    assert version(client) == old  # nothing changed: the same
    url = f"/static/v-{old}/js/big.js"
    assert client.get(url).headers["cache-control"] == IMMUTABLE
    big = frontend / "js" / "big.js"
    big.write_text("export const x = 2;\n" * 200)
    os.utime(big, ns=(big.stat().st_atime_ns, big.stat().st_mtime_ns + 1_000_000))
    new = version(client)
    assert new != old
    stale = client.get(url)  # a page loaded before the edit: today's file, revalidated
    assert stale.headers["cache-control"] == "no-cache" and "x = 2" in stale.text
    assert client.get(f"/static/v-{new}/js/big.js").headers["cache-control"] == IMMUTABLE


def test_gzip_where_accepted_and_where_it_pays(frontend: Path) -> None:
    client = client_for(frontend)
    big = client.get("/static/js/big.js", headers={"Accept-Encoding": "gzip"})
    assert big.headers["content-encoding"] == "gzip"
    assert big.text == "export const x = 1;\n" * 200  # decoded by the client
    assert int(big.headers["content-length"]) < 200
    small = client.get("/static/css/app.css", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in small.headers
    plain = client.get("/static/js/big.js", headers={"Accept-Encoding": "gzip;q=0"})
    assert "content-encoding" not in plain.headers
    assert big.headers["etag"] != plain.headers["etag"]
    assert plain.headers["content-type"] == "text/javascript; charset=utf-8"


@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        ("gzip", True),
        ("br, gzip;q=0.5", True),
        ("*", True),
        ("gzip;q=0", False),
        ("identity", False),
        ("", False),
        ("GZIP ; q=1.0", True),
    ],
)
def test_accept_encoding(header: str, accepted: bool) -> None:
    from starlette.requests import Request

    scope = {"type": "http", "headers": [(b"accept-encoding", header.encode())]}
    assert accepts_gzip(Request(scope)) is accepted


def test_a_known_etag_of_either_encoding_gets_304(frontend: Path) -> None:
    client = client_for(frontend)
    for encoding in ("gzip", "identity"):
        first = client.get("/static/js/big.js", headers={"Accept-Encoding": encoding})
        etag = first.headers["etag"]
        for asked in ("gzip", "identity"):
            again = client.get(
                "/static/js/big.js", headers={"If-None-Match": etag, "Accept-Encoding": asked}
            )
            assert again.status_code == 304 and again.content == b""
            assert again.headers["cache-control"] == "no-cache"


def test_nothing_outside_the_front_end(frontend: Path) -> None:
    assets = Assets(frontend, static.PLOTLY_JS)
    for path in ("../secret.txt", "js/../../secret.txt", "js", "", "nothing.js"):
        assert assets.file(path) is None
    client = client_for(frontend)
    assert client.get("/static/%2e%2e/secret.txt").status_code == 404
    (frontend / "index.html").unlink()
    assert client.get("/").status_code == 404


def test_the_real_front_end_is_served_with_a_version() -> None:
    client = client_for(FRONTEND)
    v = version(client)
    assert client.get(f"/static/v-{v}/js/plot.js").headers["cache-control"] == IMMUTABLE
    assert client.head(f"/static/v-{v}/js/plot.js").status_code == 200
