"""a run's model kept in parts

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28

`run_model_parts`: a run's model file in parts of 1 MiB (`db.run_models.PART_BYTES`),
so that the API streams a model in and out without holding it whole; `run_models` keeps
its size and time. As `run_models.data` was, a part is stored as it is on Postgres
(`EXTERNAL`, no compression).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

PART_BYTES = 1 << 20  # db.run_models.PART_BYTES when this was written


def upgrade() -> None:
    op.create_table(
        "run_model_parts",
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["run_models.run_id"],
            name="fk_run_model_parts_run_id_run_models",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("run_id", "seq", name="pk_run_model_parts"),
    )
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute("ALTER TABLE run_model_parts ALTER COLUMN data SET STORAGE EXTERNAL")
    models = sa.table("run_models", sa.column("run_id"), sa.column("size"), sa.column("data"))
    parts = sa.table("run_model_parts", sa.column("run_id"), sa.column("seq"), sa.column("data"))
    for run_id, size in bind.execute(sa.select(models.c.run_id, models.c.size)).all():
        for seq in range(-(-size // PART_BYTES)):  # one part at a time, read by substring
            piece = sa.func.substr(models.c.data, seq * PART_BYTES + 1, PART_BYTES)
            data = bind.scalar(sa.select(piece).where(models.c.run_id == run_id))
            bind.execute(parts.insert().values(run_id=run_id, seq=seq, data=data))
    # Natively on SQLite too (3.35 and later): a batch copy of `run_models` would drop
    # the table, and its parts with it through their foreign key.
    op.execute("ALTER TABLE run_models DROP COLUMN data")


def downgrade() -> None:
    op.add_column(
        "run_models",
        sa.Column("data", sa.LargeBinary(), nullable=False, server_default=sa.text("''")),
    )
    bind = op.get_bind()
    models = sa.table("run_models", sa.column("run_id"), sa.column("data"))
    parts = sa.table("run_model_parts", sa.column("run_id"), sa.column("seq"), sa.column("data"))
    for (run_id,) in bind.execute(sa.select(models.c.run_id)).all():
        chunks = bind.scalars(
            sa.select(parts.c.data).where(parts.c.run_id == run_id).order_by(parts.c.seq)
        )
        whole = b"".join(chunks)
        bind.execute(models.update().where(models.c.run_id == run_id).values(data=whole))
    op.drop_table("run_model_parts")
