"""an external run's availability period

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-29

`runs.availability_period`: the rounds after which an external run's availability
repeats, as the run declared them when it was created; its summary's "x̄ last period"
averages over the last such period. NULL for every run stored before, and for simulated
runs.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "runs",
        sa.Column(
            "availability_period", sa.Integer(), nullable=True, server_default=sa.text("NULL")
        ),
    )


def downgrade() -> None:
    # In place, as 0004: a batch rebuild of `runs` would cascade-delete every run's rounds.
    op.drop_column("runs", "availability_period")
