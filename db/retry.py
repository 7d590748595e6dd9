"""Transient database errors (a restart, a dropped connection, a locked SQLite file, a
full disk) and a unit of work retried through them with capped exponential backoff."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

import psycopg
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

log = logging.getLogger(__name__)

T = TypeVar("T")

FIRST_WAIT_S = 0.1  # the wait after the first failure; it doubles after each one
MAX_WAIT_S = 2.0  # so the work goes on at most this long after the database is back

# SQLSTATEs of a server that goes away: class 08 (connection exception), and a backend
# terminated by an administrator, by a crash of another one, or refused while starting.
LOST_CLASS = "08"
LOST_STATES = ("57P01", "57P02", "57P03")
# The same, reported by libpq before a session exists (without a SQLSTATE).
LOST_MESSAGES = (
    "the database system is starting up",
    "the database system is shutting down",
    "the database system is in recovery mode",
    "the database system is not yet accepting connections",
)
SQLITE_BUSY = ("SQLITE_BUSY", "SQLITE_LOCKED")  # and their extended codes
# A full disk: the database takes no writes until space returns.
SQLITE_FULL = "SQLITE_FULL"
DISK_FULL_STATE = "53100"


class DatabaseUnavailable(RuntimeError):
    """Transient errors went on past the retry limit."""


def is_transient(err: BaseException) -> bool:
    """Whether `err` says the database is away, busy or out of disk space for a while,
    rather than that the work is wrong (an integrity or programming error, a missing
    table or database)."""
    if isinstance(err, DBAPIError) and err.connection_invalidated:
        return True
    if is_disk_full(err):
        return True
    cause = err.orig if isinstance(err, DBAPIError) else err
    if isinstance(cause, sqlite3.OperationalError):
        return str(cause.sqlite_errorname).startswith(SQLITE_BUSY)
    if not isinstance(cause, psycopg.OperationalError):
        return False
    if cause.sqlstate is not None:
        return cause.sqlstate.startswith(LOST_CLASS) or cause.sqlstate in LOST_STATES
    # No SQLSTATE: the connection failed or broke (refused, reset, closed), unless the
    # server answered with a fatal error of its own (no such database, bad password).
    message = str(cause)
    return "FATAL" not in message or any(text in message for text in LOST_MESSAGES)


def is_disk_full(err: BaseException) -> bool:
    """Whether `err` says the database's disk is full (SQLite's SQLITE_FULL, which its
    `max_page_count` also gives, or Postgres' disk_full)."""
    cause = err.orig if isinstance(err, DBAPIError) else err
    if isinstance(cause, sqlite3.Error):
        return str(getattr(cause, "sqlite_errorname", "")).startswith(SQLITE_FULL)
    return isinstance(cause, psycopg.Error) and cause.sqlstate == DISK_FULL_STATE


def describe(err: BaseException) -> str:
    """The error's type and first line (psycopg's messages run over several)."""
    cause = err.orig if isinstance(err, DBAPIError) and err.orig is not None else err
    lines = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {lines[0]}" if lines else type(cause).__name__


def retrying(what: str, attempt: Callable[[], T], limit_s: float) -> T:
    """`attempt()`, called again after each transient error with a wait that doubles from
    `FIRST_WAIT_S` up to `MAX_WAIT_S`, for at most `limit_s` seconds after the first
    failure; then `DatabaseUnavailable`. Other errors are raised at once. Each retry is
    logged with its cause; `what` names the work in the log and the error."""
    first_failure: float | None = None
    wait = FIRST_WAIT_S
    retries = 0
    while True:
        try:
            result = attempt()
        except Exception as err:
            if not is_transient(err):
                raise
            now = time.monotonic()
            first_failure = now if first_failure is None else first_failure
            left = first_failure + limit_s - now
            if left <= 0:
                message = (
                    f"{what}: the database stayed unavailable for {now - first_failure:.1f} s, "
                    f"past the retry limit of {limit_s:g} s; last error: {describe(err)}"
                )
                log.error("%s", message)
                raise DatabaseUnavailable(message) from err
            retries += 1
            pause = min(wait, left)
            log.warning(
                "%s: database unavailable (%s); retry %d in %.1f s (%.0f s left)",
                what,
                describe(err),
                retries,
                pause,
                left,
            )
            time.sleep(pause)
            wait = min(2 * wait, MAX_WAIT_S)
        else:
            if first_failure is not None:
                back_after = time.monotonic() - first_failure
                log.info("%s: done after %d retries (%.1f s)", what, retries, back_after)
            return result


def in_transaction(
    sessions: sessionmaker[Session], what: str, work: Callable[[Session], T], limit_s: float
) -> T:
    """`work(session)` in a transaction of its own, retried whole by `retrying`.

    `work` must be safe to repeat: a commit whose acknowledgement was lost is retried
    too, so its writes should be idempotent (upserts, inserts that skip existing keys,
    compare-and-set updates that accept their own earlier result)."""

    def attempt() -> T:
        with sessions.begin() as session:
            return work(session)

    return retrying(what, attempt, limit_s)
