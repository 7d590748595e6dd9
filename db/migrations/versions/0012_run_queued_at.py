"""when a run last entered its queue

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24

`runs.queued_at`: set when a run is submitted, resumed, or queued again after a crash
or a stop, which all put it at the tail of its queue. Queued runs start, and show their
place in the queue, in this order (`db.models.QUEUE_ORDER`); ordering them by id showed
a resumed run ahead of the runs it waits behind. Existing runs get their creation time.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("runs", sa.Column("queued_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE runs SET queued_at = created_at")


def downgrade() -> None:
    # In place, as 0004: a batch rebuild of `runs` would cascade-delete every run's rounds.
    op.drop_column("runs", "queued_at")
