"""tuned comparisons

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28

`tunes`: one row a tuned comparison (its request, its state, the experiment of its final
runs). Its Optuna studies are kept apart from these tables (`worker.tune.storage`).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tunes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("experiment_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["experiment_id"],
            ["experiments.id"],
            name=op.f("fk_tunes_experiment_id_experiments"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tunes")),
        sqlite_autoincrement=True,
    )


def downgrade() -> None:
    op.drop_table("tunes")
