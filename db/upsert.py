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
        _insert_many(session, table, rows, None)


def upsert_many(
    session: Session, table: Table, rows: Sequence[dict[str, Any]], keys: list[str]
) -> None:
    """Insert rows, replacing the other columns of those whose `keys` exist."""
    if rows:
        _insert_many(session, table, rows, keys)


def _insert_many(
    session: Session, table: Table, rows: Sequence[dict[str, Any]], keys: list[str] | None
) -> None:
    """On Postgres the rows travel as one array per column in a single statement
    (`INSERT ... SELECT FROM unnest(...)`): a recorder flush of a thousand rows is one
    round trip instead of a thousand executions."""
    columns = list(rows[0])
    changed = [c for c in columns if keys is not None and c not in keys]
    dialect = session.get_bind().dialect
    if dialect.name != "postgresql":
        stmt = _insert(session, table)
        if keys is None:
            stmt = stmt.on_conflict_do_nothing()
        else:
            set_ = {c: stmt.excluded[c] for c in changed}
            stmt = stmt.on_conflict_do_update(index_elements=keys, set_=set_)
        session.execute(stmt, list(rows))
        return
    arrays = ", ".join(f"CAST(%({c})b AS {table.c[c].type.compile(dialect)}[])" for c in columns)
    conflict = "DO NOTHING"
    if keys is not None:
        updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in changed)
        conflict = f"({', '.join(keys)}) DO UPDATE SET {updates}"
    sql = (
        f"INSERT INTO {table.name} ({', '.join(columns)}) "
        f"SELECT * FROM unnest({arrays}) ON CONFLICT {conflict}"
    )
    # `%(name)b`: psycopg sends the arrays in binary, so packed rows travel as raw bytes
    # instead of text that the client escapes and the server parses back.
    session.connection().exec_driver_sql(sql, {c: [row[c] for row in rows] for c in columns})


def upsert(session: Session, table: Table, row: dict[str, Any], keys: list[str]) -> None:
    stmt = _insert(session, table).values(row)
    changed = {k: v for k, v in row.items() if k not in keys}
    session.execute(stmt.on_conflict_do_update(index_elements=keys, set_=changed))
