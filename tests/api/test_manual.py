"""The manual, built offline and strict (`mkdocs build --strict`), served under /manual:
every page's links and anchors lead somewhere, and so does every "?" of the dashboard."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from db.migrate import upgrade
from tests.api.helpers import embedded_settings
from tests.manual_site import build_manual

REPO = Path(__file__).resolve().parents[2]
BASE = "http://testserver"

pytestmark = pytest.mark.slow


class Links(HTMLParser):
    """A page's links (`href`, `src`) and element ids."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)
            if name == "id" and value:
                self.ids.add(value)


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    site = build_manual(tmp_path_factory.mktemp("manual"))
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'fedwatch.sqlite3'}"
    upgrade(url)
    with TestClient(create_app(embedded_settings(url, manual_dir=site))) as client:
        yield client


def parse(client: TestClient, path: str) -> Links:
    page = client.get(path)
    assert page.status_code == 200, path
    found = Links()
    if page.headers["content-type"].startswith("text/html"):
        found.feed(page.text)
    return found


def test_every_link_of_the_manual_leads_somewhere(manual: TestClient) -> None:
    seen: dict[str, Links] = {}
    todo = ["/manual/"]
    anchors: list[tuple[str, str, str]] = []  # (page, target, anchor)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen[path] = parse(manual, path)
        for link in seen[path].links:
            absolute, anchor = urldefrag(urljoin(BASE + path, link))
            target = urlparse(absolute)
            if target.netloc != "testserver":
                continue  # another site: not ours to check offline
            if target.path.startswith("/manual/"):
                todo.append(target.path)
                if anchor:
                    anchors.append((path, target.path, anchor))
            else:  # the server's own pages: the OpenAPI reference, its JSON
                assert manual.get(target.path).status_code == 200, (path, link)
    assert len([p for p in seen if p.endswith("/")]) >= 15  # every page of the nav
    missing = [(p, t, a) for p, t, a in anchors if a not in seen[t].ids]
    assert missing == []


def test_every_question_mark_of_the_dashboard_is_explained(manual: TestClient) -> None:
    source = (REPO / "frontend" / "js" / "help.js").read_text()
    table = source[source.index("export const HELP = {") : source.index("};")]
    targets = re.findall(r'^\s+\w+: "([^"]+)",$', table, re.MULTILINE)
    assert len(targets) >= 9
    for target in targets:
        path, _, anchor = target.partition("#")
        page = parse(manual, f"/manual/{path}")
        assert not anchor or anchor in page.ids, target


def test_an_unbuilt_manual_says_how_to_build_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fedwatch.sqlite3'}"
    upgrade(url)
    settings = embedded_settings(url, manual_dir=tmp_path / "nothing")
    with TestClient(create_app(settings)) as client:
        page = client.get("/manual/")
    assert page.status_code == 404 and "make docs" in page.text


def test_no_path_leads_out_of_the_manual(manual: TestClient) -> None:
    site: Path = manual.app.state.settings.manual_dir  # type: ignore[attr-defined]
    (site.parent / "secret.txt").write_text("not for the web")

    outside = manual.get("/manual/..%2Fsecret.txt")

    assert outside.status_code == 404 and "not for the web" not in outside.text
