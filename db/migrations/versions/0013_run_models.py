"""a run's final model

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25

`run_models`: one safetensors file a run, its final global model, deleted with the run.
On Postgres the file is stored as it is (`EXTERNAL`, no compression), as checkpoints
are: weights barely compress and pglz would cost seconds on a large model.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "run_models",
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name="fk_run_models_run_id_runs", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("run_id", name="pk_run_models"),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE run_models ALTER COLUMN data SET STORAGE EXTERNAL")


def downgrade() -> None:
    op.drop_table("run_models")
