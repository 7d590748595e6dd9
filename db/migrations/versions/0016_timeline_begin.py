"""when an async server update's clients began

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26

`round_clients.timeline_begin`: for an async run's server updates, when each client of
the packed timeline began (`db.packing.pack_begins`): each started on the version it
trained from, before the update's window. Null where every client began at the
timeline's start (synchronous rounds).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("round_clients", sa.Column("timeline_begin", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    op.drop_column("round_clients", "timeline_begin")
