"""Throw-away databases for tests: a SQLite file, or a fresh Postgres database."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

REQUIRED = os.environ.get("FEDWATCH_REQUIRE_SERVICES") == "1"
POSTGRES_ADMIN_URL = os.environ.get(
    "FEDWATCH_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REDIS_URL = os.environ.get("FEDWATCH_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"{reason} (FEDWATCH_REQUIRE_SERVICES=1)")
    pytest.skip(reason)


@contextmanager
def postgres_database() -> Iterator[str]:
    """A new, empty database on the test server, dropped afterwards."""
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"fedwatch_test_{uuid.uuid4().hex[:12]}"
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except OperationalError as err:
        admin.dispose()
        unavailable(f"Postgres unreachable at {POSTGRES_ADMIN_URL}: {err.orig}")
    try:
        yield make_url(POSTGRES_ADMIN_URL).set(database=name).render_as_string(False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def database(kind: str, folder: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'fedwatch.sqlite3'}"
    else:
        with postgres_database() as url:
            yield url
