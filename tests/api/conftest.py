"""The API in embedded mode on a fresh database per module: SQLite and Postgres."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from db.migrate import upgrade
from tests.api.helpers import embedded_settings
from tests.db.databases import database


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def db_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with database(request.param, tmp_path_factory.mktemp("api")) as url:
        upgrade(url)
        yield url


@pytest.fixture(scope="module")
def api_data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's data root (`FEDWATCH_DATA_ROOT`), empty at first."""
    return tmp_path_factory.mktemp("data-root")


@pytest.fixture(scope="module")
def client(db_url: str, api_data_root: Path) -> Iterator[TestClient]:
    settings = embedded_settings(db_url, data_root=str(api_data_root))
    with TestClient(create_app(settings)) as c:
        yield c
