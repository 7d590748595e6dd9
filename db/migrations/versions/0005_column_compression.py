"""cheaper compression of large values on Postgres

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23

Postgres compresses a value past about 2 kB with pglz before storing it; for the
recorder's large values that costs more CPU than it saves (measured per 1000 recorded
rounds of a 1000-client run, `bench/service.py`'s recorder run):

- checkpoints: model weights and memories barely compress. pglz spent half of the
  server's CPU on a 25 MB checkpoint (≈ 1 s) for no gain: stored as they are
  (`EXTERNAL`).
- staleness marks (12 kB at 1000 clients) and metric chunks (2 kB): they do compress
  (pglz: 73 → 30 MiB of marks for 70 000 rounds); lz4 keeps most of that at a fraction
  of the CPU (server CPU of a recorded run: 71 → 52 ms, median of 6). Only where the
  server was built with lz4 (Postgres 14+; Debian's packages and the official images
  are); elsewhere they stay as they were.

SQLite stores values as they are: nothing changes there.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

LZ4_COLUMNS = {"staleness_marks": ("total", "last"), "metric_chunks": ("present", "values")}


def upgrade() -> None:
    _apply("EXTERNAL", "lz4")


def downgrade() -> None:
    _apply("EXTENDED", "DEFAULT")


def _apply(checkpoint_storage: str, compression: str) -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    op.execute(f"ALTER TABLE checkpoints ALTER COLUMN state SET STORAGE {checkpoint_storage}")
    if _has_lz4(bind):
        for table, columns in LZ4_COLUMNS.items():
            changes = (f'ALTER COLUMN "{c}" SET COMPRESSION {compression}' for c in columns)
            op.execute(f"ALTER TABLE {table} {', '.join(changes)}")


def _has_lz4(bind: sa.Connection) -> bool:
    """Whether the server offers lz4 for column compression."""
    query = sa.text(
        "SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'"
    )
    return bool(bind.execute(query).scalar())
