"""Throw-away databases for tests: a SQLite file, or a fresh Postgres database."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import pytest
from sqlalchemy.exc import OperationalError

from db.scratch import create_database, drop_database

REQUIRED = os.environ.get("FEDWATCH_REQUIRE_SERVICES") == "1"
POSTGRES_ADMIN_URL = os.environ.get(
    "FEDWATCH_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REDIS_URL = os.environ.get("FEDWATCH_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def unavailable(reason: str) -> NoReturn:
    if REQUIRED:
        pytest.fail(f"{reason} (FEDWATCH_REQUIRE_SERVICES=1)")
    pytest.skip(reason)


@contextmanager
def postgres_database() -> Iterator[str]:
    """A new, empty database on the test server, dropped afterwards."""
    try:
        url = create_database(POSTGRES_ADMIN_URL, "fedwatch_test")
    except OperationalError as err:
        unavailable(f"Postgres unreachable at {POSTGRES_ADMIN_URL}: {err.orig}")
    try:
        yield url
    finally:
        drop_database(POSTGRES_ADMIN_URL, url)


@contextmanager
def database(kind: str, folder: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'fedwatch.sqlite3'}"
    else:
        with postgres_database() as url:
            yield url
