"""A SQLite database whose disk is full, as far as SQLite can tell: while `full`, every
connection the engine hands out takes no page beyond those the file has
(`PRAGMA max_page_count`), which fails a write that needs one with the very error of a
full disk, SQLITE_FULL ("database or disk is full"). A real full disk needs a file
system of the test's own, which an unprivileged test cannot mount."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, event

NO_LIMIT = 2**32 - 2  # SQLite's largest max_page_count


class FullDisk:
    def __init__(self, engine: Engine) -> None:
        self.full = False
        event.listen(engine, "checkout", self._checkout)

    def _checkout(self, dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        # Below the file's size, max_page_count is set to that size.
        pages = 1 if self.full else NO_LIMIT
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")
