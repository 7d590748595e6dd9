"""selection gaps next to the selected ids

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21

`round_clients.gaps[i]`: rounds since `selected[i]` was last selected before (round + 1
for a first selection), little-endian uint16, or uint32 in a round where one gap reaches
65 536. Existing rows are filled from their run's selection history.
"""

from __future__ import annotations

import numpy as np
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

ROUND_CLIENTS = sa.table(
    "round_clients",
    sa.column("run_id", sa.Integer()),
    sa.column("round", sa.Integer()),
    sa.column("selected", sa.LargeBinary()),
    sa.column("gaps", sa.LargeBinary()),
)
RUNS = sa.table("runs", sa.column("id", sa.Integer()), sa.column("n_clients", sa.Integer()))


def run_gaps(selected: list[bytes], rounds: list[int], n_clients: int) -> list[bytes]:
    """Each round's packed gaps, from the run's selections in round order."""
    ids = np.dtype("<u2") if n_clients <= 1 << 16 else np.dtype("<u4")
    counts = np.array([len(b) // ids.itemsize for b in selected], dtype=np.int64)
    clients = np.frombuffer(b"".join(selected), dtype=ids)
    events = np.repeat(np.array(rounds, dtype=np.int64), counts)
    order = np.argsort(clients, kind="stable")
    c, e = clients[order], events[order]
    previous = np.full_like(e, -1)
    same = c[1:] == c[:-1]
    previous[1:][same] = e[:-1][same]
    gaps = np.empty_like(e)
    gaps[order] = e - previous
    return [
        part.astype("<u4" if part.size and part.max() > 0xFFFF else "<u2").tobytes()
        for part in np.split(gaps, np.cumsum(counts)[:-1])
    ]


def upgrade() -> None:
    op.add_column("round_clients", sa.Column("gaps", sa.LargeBinary(), nullable=True))
    bind = op.get_bind()
    runs = bind.execute(
        sa.select(RUNS.c.id, RUNS.c.n_clients).where(
            RUNS.c.id.in_(sa.select(ROUND_CLIENTS.c.run_id).distinct())
        )
    ).all()
    fill = (
        sa.update(ROUND_CLIENTS)
        .where(
            ROUND_CLIENTS.c.run_id == sa.bindparam("run"),
            ROUND_CLIENTS.c.round == sa.bindparam("at"),
        )
        .values(gaps=sa.bindparam("packed"))
    )
    for run_id, n_clients in runs:
        rows = bind.execute(
            sa.select(ROUND_CLIENTS.c.round, ROUND_CLIENTS.c.selected)
            .where(ROUND_CLIENTS.c.run_id == run_id)
            .order_by(ROUND_CLIENTS.c.round)
        ).all()
        rounds = [r[0] for r in rows]
        packed = run_gaps([r[1] for r in rows], rounds, n_clients)
        bind.execute(
            fill,
            [{"run": run_id, "at": t, "packed": p} for t, p in zip(rounds, packed, strict=True)],
        )
    with op.batch_alter_table("round_clients", schema=None) as batch_op:
        batch_op.alter_column("gaps", existing_type=sa.LargeBinary(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("round_clients", schema=None) as batch_op:
        batch_op.drop_column("gaps")
