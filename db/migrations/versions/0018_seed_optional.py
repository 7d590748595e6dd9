"""a run's seed may be unknown

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28

`runs.seed` is nullable: an external run whose config names no integer seed has none
(it was stored as 0, and shown as "seed 0"). Those runs' 0 becomes NULL.

SQLite rebuilds `runs` for it, with foreign keys off and its AUTOINCREMENT kept, as in
0007: with them on, dropping the old table would delete every run's records.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

runs = sa.table(
    "runs",
    sa.column("id", sa.Integer()),
    sa.column("seed", sa.Integer()),
    sa.column("source", sa.String()),
    sa.column("config", sa.JSON()),
)


def _given(config: object) -> bool:
    """Whether an external run's config names the seed it was stored with."""
    seed = config.get("seed") if isinstance(config, dict) else None
    return isinstance(seed, int) and not isinstance(seed, bool) and abs(seed) < 2**31


def _seed_nullable(nullable: bool) -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    context = op.get_context()
    if sqlite:
        with context.autocommit_block():
            op.execute("PRAGMA foreign_keys=OFF")
    kept = {"sqlite_autoincrement": True} if sqlite else {}
    with op.batch_alter_table("runs", table_kwargs=kept) as batch_op:
        batch_op.alter_column("seed", existing_type=sa.Integer(), nullable=nullable)
    if sqlite:
        with context.autocommit_block():  # commits the rebuild
            op.execute("PRAGMA foreign_keys=ON")


def upgrade() -> None:
    _seed_nullable(True)
    connection = op.get_bind()
    external = connection.execute(
        sa.select(runs.c.id, runs.c.config).where(runs.c.source == "external")
    )
    unknown = [{"run": run_id} for run_id, config in external if not _given(config)]
    if unknown:
        connection.execute(
            runs.update().where(runs.c.id == sa.bindparam("run")).values(seed=None), unknown
        )


def downgrade() -> None:
    op.execute(runs.update().where(runs.c.seed.is_(None)).values(seed=0))
    _seed_nullable(False)
