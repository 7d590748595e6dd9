"""The front end's files as the browser should get them: compressed, revalidated cheaply,
and cached for good where the URL names the content.

No build step: at each request of the page, the server hashes the front end's files
(again only when one changed: their sizes and mtimes are compared first) and writes that
version into the page's URLs, `/static/v-<hash>/js/app.js`. The ES modules import each
other by relative paths, so the whole module graph lives under that prefix, and a changed
file changes the prefix of every URL. Plotly's script gets `?v=<hash of the file>`.

- a URL with the current version: `Cache-Control: public, max-age=31536000, immutable`;
- the page, an unversioned URL, or one with an older version (a page loaded before an
  update): `no-cache`, so the browser revalidates with the ETag and gets a 304;
- gzip where the browser accepts it, compressed once per file version and kept in memory
  (brotli would need a package the project does not depend on).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import mimetypes
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from fastapi import Request, Response

from worker.engine import inside, is_file

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
VERSIONED = re.compile(r"^v-([0-9a-f]{12})/(.+)$")
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")
MIN_GZIP_BYTES = 512
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}


@dataclass(frozen=True)
class Encoded:
    """One version of a file: its bytes, their gzip (None where it would not pay), its
    ETag and media type."""

    raw: bytes
    gzipped: bytes | None
    etag: str
    media_type: str


def media_type(path: Path) -> str:
    guessed = MEDIA_TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0]
    return guessed or "application/octet-stream"


def encode(raw: bytes, media: str) -> Encoded:
    digest = hashlib.sha256(raw).hexdigest()[:20]
    gzipped = None
    if media.startswith(COMPRESSIBLE) and len(raw) >= MIN_GZIP_BYTES:
        packed = gzip.compress(raw, compresslevel=9, mtime=0)
        gzipped = packed if len(packed) < len(raw) else None
    return Encoded(raw, gzipped, f'"{digest}"', media)


def accepts_gzip(request: Request) -> bool:
    for part in request.headers.get("accept-encoding", "").split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            q = params.strip().removeprefix("q=").strip() if "q=" in params else "1"
            try:
                return float(q) > 0
            except ValueError:
                return False
    return False


def respond(request: Request, file: Encoded, cache_control: str) -> Response:
    """The file, gzipped where the browser accepts it, or 304 where the browser holds this
    version (its ETag, of either encoding: the content is the same)."""
    use_gzip = file.gzipped is not None and accepts_gzip(request)
    tags = {file.etag: False, f'{file.etag[:-1]}-gz"': True}
    etag = next(t for t, gz in tags.items() if gz == use_gzip)
    held = {
        t.strip().removeprefix("W/") for t in request.headers.get("if-none-match", "").split(",")
    }
    if matched := next((t for t in tags if t in held), None) or ("*" in held and etag):
        headers = {"Cache-Control": cache_control, "ETag": matched, "Vary": "Accept-Encoding"}
        return Response(status_code=304, headers=headers)
    headers = {"Cache-Control": cache_control, "ETag": etag, "Vary": "Accept-Encoding"}
    if use_gzip and file.gzipped is not None:
        headers["Content-Encoding"] = "gzip"
        return Response(file.gzipped, media_type=file.media_type, headers=headers)
    return Response(file.raw, media_type=file.media_type, headers=headers)


class FileCache:
    """Files read and compressed once per (size, mtime); one lock per file, so a large one
    being compressed (Plotly: 4.8 MB, 0.3 s) does not hold up the others."""

    def __init__(self) -> None:
        self._entries: dict[Path, tuple[tuple[int, int], Encoded]] = {}
        self._locks: dict[Path, threading.Lock] = {}
        self._guard = threading.Lock()

    def get(self, path: Path) -> Encoded:
        with self._guard:
            lock = self._locks.setdefault(path, threading.Lock())
        with lock:
            st = path.stat()
            key = (st.st_size, st.st_mtime_ns)
            entry = self._entries.get(path)
            if entry is None or entry[0] != key:
                entry = (key, encode(path.read_bytes(), media_type(path)))
                self._entries[path] = entry
            return entry[1]


class Assets:
    """The front end directory and Plotly's script, with their versions."""

    def __init__(self, frontend_dir: Path, plotly_js: Path) -> None:
        self.root = frontend_dir
        self.plotly_js = plotly_js
        self.files = FileCache()
        self._signature: tuple[tuple[str, int, int], ...] | None = None
        self._version = ""
        self._lock = threading.Lock()
        self._warming = False

    def _listing(self) -> list[Path]:
        found = []
        for folder, dirs, names in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            found += [Path(folder) / n for n in sorted(names) if not n.startswith(".")]
        return found

    def version(self) -> str:
        """12 hex digits of the hash of every front-end file (path and content); hashed
        again only when a file's size or mtime changed."""
        files = self._listing()
        signature = tuple(
            (str(p.relative_to(self.root)), (st := p.stat()).st_size, st.st_mtime_ns) for p in files
        )
        with self._lock:
            if signature != self._signature:
                h = hashlib.sha256()
                for p in files:
                    h.update(str(p.relative_to(self.root)).encode() + b"\0")
                    h.update(p.read_bytes() + b"\0")
                self._signature, self._version = signature, h.hexdigest()[:12]
            return self._version

    @functools.cached_property
    def plotly_version(self) -> str:
        """12 hex digits of the hash of Plotly's script (the installed package's file)."""
        return hashlib.sha256(self.plotly_js.read_bytes()).hexdigest()[:12]

    def warm(self) -> None:
        """Compress Plotly's script in a thread, once, when the first page is served: it is
        ready by the time a page that plots asks for it."""
        with self._lock:
            if self._warming:
                return
            self._warming = True
        threading.Thread(target=self.files.get, args=(self.plotly_js,), daemon=True).start()

    def file(self, relative: str) -> tuple[Path, bool] | None:
        """The file a `/static/` path names and whether its version is the current one;
        None outside the front end directory, for a folder, or for a name that no file
        can have."""
        versioned = False
        if match := VERSIONED.match(relative):
            versioned = match.group(1) == self.version()
            relative = match.group(2)
        path = inside(self.root, relative)
        if path is None or not is_file(path):
            return None
        return path, versioned

    def index(self) -> Encoded:
        """index.html with its URLs versioned and every module preloaded (the browser
        fetches the module graph at once instead of one import level at a time)."""
        self.warm()
        page = (self.root / "index.html").read_text()
        prefix = f"/static/v-{self.version()}/"
        page = re.sub(r'((?:href|src)=")/static/', rf"\1{prefix}", page)
        page = page.replace(
            '"/vendor/plotly.min.js"', f'"/vendor/plotly.min.js?v={self.plotly_version}"'
        )
        files = (p.relative_to(self.root) for p in self._listing())
        modules = sorted(f for f in files if f.parts[0] == "js" and f.suffix == ".js")  # not docs/
        preload = "".join(
            f'  <link rel="modulepreload" href="{url}">\n'
            for url in (f"{prefix}{m.as_posix()}" for m in modules)
            if f'"{url}"' not in page
        )
        page = page.replace("</head>", f"{preload}</head>", 1)
        return encode(page.encode(), "text/html; charset=utf-8")
