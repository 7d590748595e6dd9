"""archived runs

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-25

`runs.archived`: a run kept with its records but left out of the runs list unless asked
for (`GET /api/runs?archived=yes|any`). Existing runs are not archived.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "runs",
        sa.Column("archived", sa.Boolean(), nullable=False, server_default=sa.text("false")),
    )


def downgrade() -> None:
    # In place, as 0004: a batch rebuild of `runs` would cascade-delete every run's rounds.
    op.drop_column("runs", "archived")
