"""A component's name is stored in a run's row (`runs.algorithm`, `runs.dataset`,
`runs.availability`, `fedwatch.limits.COMPONENT_NAME_MAX` characters): a longer one is
refused where it is declared, of every kind; the longest one allowed is stored on
Postgres, whose columns hold no more (a 41-character plug-in name used to pass, and
`POST /api/runs` answered 500 there)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from api.main import create_app
from db.migrate import upgrade
from db.models import Run
from db.session import make_engine, make_sessionmaker
from fedwatch.limits import COMPONENT_NAME_MAX
from tests.api.helpers import embedded_settings, example1
from tests.db.databases import postgres_database
from worker.engine.algorithms.fedavg import FedAvg
from worker.engine.components import installed, using
from worker.engine.registry import ALGORITHM, KINDS, Kind, RegistrationError, algorithm, declare


def test_the_limit_is_the_columns_width() -> None:
    assert COMPONENT_NAME_MAX == 40
    for column in ("algorithm", "dataset", "availability"):
        assert Run.__table__.c[column].type.length == COMPONENT_NAME_MAX  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.section + "." + k.selector)
def test_a_name_longer_than_the_column_is_refused_at_declare(kind: Kind) -> None:
    with pytest.raises(RegistrationError, match=r"at most 40 characters .*, not 41$"):
        declare(kind, "a" * 41, object())


def test_a_plugin_decorator_refuses_it_too() -> None:
    with pytest.raises(RegistrationError, match=r"test_component_names.py:\d+: algorithm 'b{41}'"):

        @algorithm("b" * 41)
        class TooLong(FedAvg):
            pass


def test_the_longest_name_is_stored_on_postgres(tmp_path: Path) -> None:
    name = "c" * COMPONENT_NAME_MAX
    parts = installed().include(declare(ALGORITHM, name, FedAvg))
    with postgres_database() as url, using(parts):
        upgrade(url)
        app = create_app(embedded_settings(url, data_root=str(tmp_path)), parts)
        with TestClient(app) as client:
            response = client.post("/api/runs", json={"config": example1(2, algorithm__name=name)})
        assert response.status_code == 201, response.text
        engine = make_engine(url)
        with make_sessionmaker(engine)() as session:
            assert session.scalars(select(Run.algorithm)).all() == [name]
        engine.dispose()
