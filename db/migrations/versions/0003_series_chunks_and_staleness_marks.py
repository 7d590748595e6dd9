"""metric chunks replace round_metrics; staleness marks

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21

`metric_chunks` (each metric packed per block of rounds, see `db.series`) takes the
place of one `round_metrics` row per (run, metric, round); `staleness_marks` (each
client's accumulated staleness every few rounds, see `db.marks`) is new. Runs recorded
before are converted; the downgrade unpacks the chunks into rows again.
"""

from __future__ import annotations

import numpy as np
import sqlalchemy as sa
from alembic import op

from db.marks import SelectionTally
from db.packing import id_dtype
from db.series import ChunkWriter, unpack_chunks

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

RUNS = sa.table("runs", sa.column("id", sa.Integer()), sa.column("n_clients", sa.Integer()))
METRICS = sa.table(
    "round_metrics",
    sa.column("run_id", sa.Integer()),
    sa.column("name", sa.String()),
    sa.column("round", sa.Integer()),
    sa.column("value", sa.Float()),
)
CLIENTS = sa.table(
    "round_clients",
    sa.column("run_id", sa.Integer()),
    sa.column("round", sa.Integer()),
    sa.column("selected", sa.LargeBinary()),
)


def upgrade() -> None:
    chunks = op.create_table(
        "metric_chunks",
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("chunk", sa.Integer(), nullable=False),
        sa.Column("present", sa.LargeBinary(), nullable=False),
        sa.Column("values", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["runs.id"],
            name=op.f("fk_metric_chunks_run_id_runs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("run_id", "name", "chunk", name=op.f("pk_metric_chunks")),
    )
    marks = op.create_table(
        "staleness_marks",
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("total", sa.LargeBinary(), nullable=False),
        sa.Column("last", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["runs.id"],
            name=op.f("fk_staleness_marks_run_id_runs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("run_id", "round", name=op.f("pk_staleness_marks")),
    )
    bind = op.get_bind()
    for run_id, n_clients in bind.execute(sa.select(RUNS.c.id, RUNS.c.n_clients)).all():
        writer = ChunkWriter(run_id)
        for name, round_, value in bind.execute(
            sa.select(METRICS.c.name, METRICS.c.round, METRICS.c.value)
            .where(METRICS.c.run_id == run_id)
            .order_by(METRICS.c.round)
        ):
            writer.add(round_, {name: value})
        if rows := writer.take():
            bind.execute(sa.insert(chunks), rows)
        if rows := run_marks(bind, run_id, n_clients):
            bind.execute(sa.insert(marks), rows)
    op.drop_table("round_metrics")


def run_marks(bind: sa.Connection, run_id: int, n_clients: int) -> list[dict[str, object]]:
    """The marks the recorder would have written, replayed over the stored rounds."""
    tally = SelectionTally.empty(run_id, n_clients)
    rows = []
    for round_, selected in bind.execute(
        sa.select(CLIENTS.c.round, CLIENTS.c.selected)
        .where(CLIENTS.c.run_id == run_id)
        .order_by(CLIENTS.c.round)
    ):
        ids = np.frombuffer(selected, dtype=id_dtype(n_clients)).astype(np.int64)
        rows.extend(tally.advance(round_, ids)[1])
    return rows


def downgrade() -> None:
    metrics = op.create_table(
        "round_metrics",
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("value", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_round_metrics_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint(
            "run_id", "name", "round", name=op.f("pk_round_metrics"), postgresql_include=["value"]
        ),
    )
    bind = op.get_bind()
    chunks = sa.table(
        "metric_chunks",
        *(sa.column(c) for c in ("run_id", "name", "chunk", "present", "values")),
    )
    for run_id, name, chunk, present, packed in bind.execute(sa.select(chunks)):
        rounds, values = unpack_chunks([(chunk, present, packed)])
        rows = [
            {"run_id": run_id, "name": name, "round": r, "value": None if v != v else v}
            for r, v in zip(rounds.tolist(), values.tolist(), strict=True)
        ]
        bind.execute(sa.insert(metrics), rows)
    op.drop_table("staleness_marks")
    op.drop_table("metric_chunks")
