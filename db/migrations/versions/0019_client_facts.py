"""each client's data share and device time; participation bias as a TV distance

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28

`round_clients.clients`: in round 0's row of a simulated run, each client's data share
(its target weight α) and, with a system model, its device's seconds for a round's
whole work (`db.packing.pack_facts`). Null in every other row and in external runs.

Stored summaries lose `participation_bias`, the correlation over the clients between
availability and entered updates that the summary no longer holds (±1 for any two
clients, undefined under constant availability). `participation_tv`, TV(α, p̄), takes
its place: for a simulated run, the last `tv_bias_avg` it recorded is that value
exactly; a run without it gets none.
"""

from __future__ import annotations

import numpy as np
import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

runs = sa.table("runs", sa.column("id", sa.Integer), sa.column("summary", sa.JSON))
chunks = sa.table(
    "metric_chunks",
    sa.column("run_id", sa.Integer),
    sa.column("name", sa.String),
    sa.column("chunk", sa.Integer),
    sa.column("present", sa.LargeBinary),
    sa.column("values", sa.LargeBinary),
)
CHUNK = 256  # rounds a chunk: a bitmap of the rounds present, then CHUNK float64 values


def upgrade() -> None:
    op.add_column("round_clients", sa.Column("clients", sa.LargeBinary(), nullable=True))
    bind = op.get_bind()
    for run_id, summary in bind.execute(sa.select(runs.c.id, runs.c.summary)).all():
        if not isinstance(summary, dict) or "participation_bias" not in summary:
            continue
        updated = {k: v for k, v in summary.items() if k != "participation_bias"}
        last = _last_tv_bias_avg(bind, run_id)
        if last is not None:  # else read from the records where they tell it (external runs)
            updated.setdefault("participation_tv", last)
        bind.execute(runs.update().where(runs.c.id == run_id).values(summary=updated))


def downgrade() -> None:
    op.drop_column("round_clients", "clients")


def _last_tv_bias_avg(bind: sa.Connection, run_id: int) -> float | None:
    """The run's last recorded `tv_bias_avg` (None: none, or not finite)."""
    row = bind.execute(
        sa.select(chunks.c.present, chunks.c["values"])
        .where(chunks.c.run_id == run_id, chunks.c.name == "tv_bias_avg")
        .order_by(chunks.c.chunk.desc())
        .limit(1)
    ).first()
    if row is None:
        return None
    present = np.unpackbits(np.frombuffer(row[0], dtype=np.uint8), count=CHUNK).astype(bool)
    if not present.any():
        return None
    value = float(np.frombuffer(row[1], dtype="<f8")[np.flatnonzero(present)[-1]])
    return value if np.isfinite(value) else None
