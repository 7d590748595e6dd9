from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.orm import Session, sessionmaker

from db.migrate import upgrade
from db.session import make_engine, make_sessionmaker
from tests.db.databases import database


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with database(request.param, tmp_path_factory.mktemp("db")) as url:
        upgrade(url)
        yield url


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(db_url)
    yield make_sessionmaker(engine)
    engine.dispose()
