"""a token per execution of a run

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21

`runs.claim`: set anew each time a worker claims the run; the recorder and the final
status update of an execution only apply while the run still carries its token.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("runs", sa.Column("claim", sa.String(length=32), nullable=True))


def downgrade() -> None:
    # In place on SQLite too (3.35+): a batch rebuild of `runs` would drop the table, and
    # with foreign keys on that deletes every run's rounds.
    op.drop_column("runs", "claim")
