"""metric chunks replace round_metrics; staleness marks

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21

`metric_chunks` (each metric packed per block of rounds, see `db.series`) takes the
place of one `round_metrics` row per (run, metric, round); `staleness_marks` (each
client's accumulated staleness every few rounds, see `db.marks`) is new. Runs recorded
before are converted; the downgrade unpacks the chunks into rows again.

The formats are written out here as they were at this revision (a migration must not
change when the live modules do): a chunk holds CHUNK rounds as a bitmap of the rounds
present and their float64 values (NaN where not finite); a mark at round t holds each
client's S_k(t) = Σ_{u<t} (u − L_k(u)) as int64 and L_k(t − 1) as int32, L_k(u) its
last selection at or before u (−1 before the first).
"""

from __future__ import annotations

import numpy as np
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

CHUNK = 256
MARK_EVERY = 32
VALUE_DTYPE = np.dtype("<f8")
TOTAL_DTYPE = np.dtype("<i8")
LAST_DTYPE = np.dtype("<i4")

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
        if rows := run_chunks(bind, run_id):
            bind.execute(sa.insert(chunks), rows)
        if rows := run_marks(bind, run_id, n_clients):
            bind.execute(sa.insert(marks), rows)
    op.drop_table("round_metrics")


def run_chunks(bind: sa.Connection, run_id: int) -> list[dict[str, object]]:
    """The run's metric rows, packed per metric and chunk."""
    packed: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
    for name, round_, value in bind.execute(
        sa.select(METRICS.c.name, METRICS.c.round, METRICS.c.value).where(
            METRICS.c.run_id == run_id
        )
    ):
        present, values = packed.setdefault(
            (name, round_ // CHUNK), (np.zeros(CHUNK, bool), np.full(CHUNK, np.nan))
        )
        present[round_ % CHUNK] = True
        values[round_ % CHUNK] = np.nan if value is None or not np.isfinite(value) else value
    return [
        {
            "run_id": run_id,
            "name": name,
            "chunk": chunk,
            "present": np.packbits(present).tobytes(),
            "values": values.astype(VALUE_DTYPE).tobytes(),
        }
        for (name, chunk), (present, values) in sorted(packed.items())
    ]


def run_marks(bind: sa.Connection, run_id: int, n_clients: int) -> list[dict[str, object]]:
    """The marks the recorder would have written, replayed over the stored rounds (a
    round never recorded counts as one in which nobody was selected)."""
    id_dtype = np.dtype("<u2") if n_clients <= 1 << 16 else np.dtype("<u4")
    selections = {
        round_: np.frombuffer(selected, dtype=id_dtype).astype(np.int64)
        for round_, selected in bind.execute(
            sa.select(CLIENTS.c.round, CLIENTS.c.selected).where(CLIENTS.c.run_id == run_id)
        )
    }
    if not selections:
        return []
    last = np.full(n_clients, -1, dtype=np.int64)
    total = np.zeros(n_clients, dtype=np.int64)
    rows: list[dict[str, object]] = []
    for u in range(max(selections) + 1):
        if u in selections:
            last[selections[u]] = u
        total += u - last
        if (u + 1) % MARK_EVERY == 0:
            rows.append(
                {
                    "run_id": run_id,
                    "round": u + 1,
                    "total": total.astype(TOTAL_DTYPE).tobytes(),
                    "last": last.astype(LAST_DTYPE).tobytes(),
                }
            )
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
        mask = np.unpackbits(np.frombuffer(present, dtype=np.uint8), count=CHUNK).astype(bool)
        values = np.frombuffer(packed, dtype=VALUE_DTYPE)[mask]
        rounds = chunk * CHUNK + np.flatnonzero(mask)
        rows = [
            {"run_id": run_id, "name": name, "round": r, "value": None if v != v else v}
            for r, v in zip(rounds.tolist(), values.tolist(), strict=True)
        ]
        bind.execute(sa.insert(metrics), rows)
    op.drop_table("staleness_marks")
    op.drop_table("metric_chunks")
