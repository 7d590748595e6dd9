"""how often a run's executor crashed

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23

`runs.crashes`: executions of the run that ended without storing an outcome (the run's
process killed, its worker or server gone). A run is resumed automatically after its
first crash only; resuming it by hand starts the count again.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "runs", sa.Column("crashes", sa.Integer(), nullable=False, server_default=sa.text("0"))
    )


def downgrade() -> None:
    # In place, as 0004: a batch rebuild of `runs` would cascade-delete every run's rounds.
    op.drop_column("runs", "crashes")
