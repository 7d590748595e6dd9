"""The retry policy against real errors: a locked SQLite file, a terminated Postgres
connection, a refused one, and errors that must not be retried."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.orm import Session, sessionmaker

from db.retry import DatabaseUnavailable, in_transaction, is_transient
from db.session import make_engine, make_sessionmaker
from tests.db.databases import postgres_database
from tests.db.full_disk import FullDisk
from tests.db.logs import OnLog
from tests.service.cluster import free_port


@pytest.fixture
def pg_sessions() -> Iterator[sessionmaker[Session]]:
    with postgres_database() as url:
        engine = make_engine(url)
        yield make_sessionmaker(engine)
        engine.dispose()


def test_sqlite_lock_is_waited_out(tmp_path: Path) -> None:
    path = tmp_path / "locked.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x INTEGER)")
    holder.execute("BEGIN IMMEDIATE")  # the write lock, until the first retry is logged
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.05})
    sessions = make_sessionmaker(engine)

    def insert(session: Session) -> int:
        session.execute(text("INSERT INTO t VALUES (1)"))
        return 7

    release = OnLog("db.retry", "insert: database unavailable", lambda: holder.execute("COMMIT"))
    with release:
        assert in_transaction(sessions, "insert", insert, limit_s=30) == 7
    assert release.messages == [
        "insert: database unavailable (OperationalError: database is locked); "
        "retry 1 in 0.1 s (30 s left)"
    ]
    assert holder.execute("SELECT count(*) FROM t").fetchone() == (1,)
    engine.dispose()


def test_terminated_postgres_connection_is_retried(pg_sessions: sessionmaker[Session]) -> None:
    attempts = []

    def query(session: Session) -> int:
        attempts.append(session.scalar(text("SELECT pg_backend_pid()")))
        if len(attempts) == 1:  # an administrator ends this connection
            with pg_sessions() as other:
                other.execute(
                    text("SELECT pg_terminate_backend(:pid, 10000)"), {"pid": attempts[0]}
                )
        return int(session.scalar(text("SELECT 1")) or 0)

    with OnLog("db.retry", "query: database unavailable") as retried:
        assert in_transaction(pg_sessions, "query", query, limit_s=30) == 1
    assert len(attempts) == 2 and attempts[0] != attempts[1]
    assert (
        "(AdminShutdown: terminating connection due to administrator command)"
        in (retried.messages[0])
    )


def test_refused_connection_is_retried_until_the_limit() -> None:
    engine = make_engine(f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/nothing")
    retried = OnLog("db.retry", "connect: database unavailable")
    with retried, pytest.raises(DatabaseUnavailable) as raised:
        in_transaction(make_sessionmaker(engine), "connect", Session.connection, limit_s=0.5)
    assert "connect: the database stayed unavailable for" in str(raised.value)
    assert "past the retry limit of 0.5 s; last error: OperationalError: connection failed" in (
        str(raised.value)
    )
    assert isinstance(raised.value.__cause__, OperationalError)
    assert len(retried.messages) >= 2
    assert all("Connection refused" in message for message in retried.messages)


def test_missing_database_is_not_retried(pg_sessions: sessionmaker[Session]) -> None:
    url = pg_sessions.kw["bind"].url.set(database="fedwatch_no_such_database")
    engine = make_engine(url.render_as_string(hide_password=False))
    retried = OnLog("db.retry", "database unavailable")
    with retried, pytest.raises(OperationalError, match="does not exist"):
        in_transaction(make_sessionmaker(engine), "connect", Session.connection, limit_s=30)
    assert retried.messages == []


@pytest.mark.parametrize(
    ("statement", "error"),
    [
        ("INSERT INTO t VALUES (1)", IntegrityError),  # a second row with key 1
        ("SELECT * FROM no_such_table", (OperationalError, ProgrammingError)),
    ],
)
def test_errors_of_the_work_are_raised_at_once(
    sessions: sessionmaker[Session], statement: str, error: type[Exception]
) -> None:
    with sessions.begin() as session:
        session.execute(text("CREATE TABLE t (x INTEGER PRIMARY KEY)"))
        session.execute(text("INSERT INTO t VALUES (1)"))
    attempts = []

    def work(session: Session) -> None:
        attempts.append(1)
        session.execute(text(statement))

    with OnLog("db.retry", "database unavailable") as retried, pytest.raises(error):
        in_transaction(sessions, "work", work, limit_s=30)
    assert attempts == [1] and retried.messages == []


@pytest.mark.parametrize(
    ("message", "transient"),
    [
        ("connection failed: FATAL:  the database system is starting up", True),
        ("connection failed: FATAL:  the database system is shutting down", True),
        ("consuming input failed: server closed the connection unexpectedly", True),
        ('connection failed: FATAL:  password authentication failed for user "x"', False),
    ],
)
def test_connection_failures_without_sqlstate(message: str, transient: bool) -> None:
    # libpq reports these before a session exists, so they carry no SQLSTATE.
    assert is_transient(psycopg.OperationalError(message)) is transient


def test_a_full_disk_is_waited_out(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'full.sqlite3'}")
    sessions = make_sessionmaker(engine)
    with sessions.begin() as session:
        session.execute(text("CREATE TABLE t (x BLOB)"))
    disk = FullDisk(engine)
    disk.full = True

    def insert(session: Session) -> int:
        session.execute(text("INSERT INTO t VALUES (zeroblob(100000))"))  # needs new pages
        return 7

    def space_returns() -> None:
        disk.full = False

    with OnLog("db.retry", "insert: database unavailable", space_returns) as retried:
        assert in_transaction(sessions, "insert", insert, limit_s=30) == 7
    assert retried.messages == [
        "insert: database unavailable (OperationalError: database or disk is full); "
        "retry 1 in 0.1 s (30 s left)"
    ]
    engine.dispose()
