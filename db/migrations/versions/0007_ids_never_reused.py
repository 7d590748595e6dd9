"""run and experiment ids are never reused on SQLite

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23

Without AUTOINCREMENT, SQLite gives a new row the largest id in its table plus one: once
the run with the largest id was deleted, the next run got its id, and old links and
shared compare URLs showed another run. `runs` and `experiments` are rebuilt with
AUTOINCREMENT, so new ids grow past every id the table has held (from this revision on;
ids freed before it are not known). Postgres takes ids from sequences, which never go
back: nothing changes there.

SQLite cannot add AUTOINCREMENT in place. The tables are rebuilt (copied, dropped,
renamed) with foreign keys off, as SQLite's procedure for schema changes prescribes:
with them on, dropping the old `runs` would delete every run's rounds and checkpoints
(ON DELETE CASCADE), and dropping `experiments` would detach every run from its
experiment (ON DELETE SET NULL). The pragma only takes effect outside a transaction, so
the migrations before this one are committed first.
"""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

TABLES = ("experiments", "runs")


def upgrade() -> None:
    _rebuild(autoincrement=True)


def downgrade() -> None:
    _rebuild(autoincrement=False)


def _rebuild(autoincrement: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    context = op.get_context()
    with context.autocommit_block():
        op.execute("PRAGMA foreign_keys=OFF")
    for table in TABLES:
        # The table is reflected from the database as it is at this revision: its
        # columns, indexes and constraints are copied over unchanged.
        with op.batch_alter_table(
            table, recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}
        ):
            pass
    with context.autocommit_block():  # commits the rebuild
        op.execute("PRAGMA foreign_keys=ON")
