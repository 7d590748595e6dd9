"""each round's clients in simulated time

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-25

`round_clients.timeline`: for runs with a system model, every selected client's
download, compute and activity end times and the outcome of its update, packed
(`db.packing.pack_timeline`); null for the other rounds.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("round_clients", sa.Column("timeline", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    op.drop_column("round_clients", "timeline")
