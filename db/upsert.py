"""Dialect-specific INSERT ... ON CONFLICT for the two supported databases."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session


def _insert(session: Session, table: Table) -> Any:
    dialect = session.get_bind().dialect.name
    return (postgresql if dialect == "postgresql" else sqlite).insert(table)


def insert_ignore(session: Session, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    """Insert rows, skipping those whose key exists: rewriting a round is harmless."""
    if rows:
        session.execute(_insert(session, table).on_conflict_do_nothing(), list(rows))


def upsert(session: Session, table: Table, row: dict[str, Any], keys: list[str]) -> None:
    stmt = _insert(session, table).values(row)
    changed = {k: v for k, v in row.items() if k not in keys}
    session.execute(stmt.on_conflict_do_update(index_elements=keys, set_=changed))
