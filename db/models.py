"""Tables of the tracking database (identical on SQLite and Postgres).

Per-round data is kept compact: each metric packed per block of rounds
(`metric_chunks`), one `round_clients` row per (run, round) holding the availability
bitmap, the selected ids with their gaps since each client's previous selection and the
aggregation weights as packed bytes (see `db.packing`), never one row per (client,
round), and every few rounds each client's accumulated staleness (`staleness_marks`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from fedwatch.limits import COMPONENT_NAME_MAX, METRIC_NAME_MAX, TAG_MAX

# Where a run's rounds come from: the engine, or any FL code through the ingest API.
SIMULATED, EXTERNAL = "simulated", "external"

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC on both databases (SQLite hands back naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Experiment(Base):
    __tablename__ = "experiments"
    __table_args__ = ({"sqlite_autoincrement": True},)  # an id is never reused

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    base: Mapped[dict[str, Any]] = mapped_column(JSON)
    grid: Mapped[dict[str, Any]] = mapped_column(JSON)
    seeds: Mapped[list[int]] = mapped_column(JSON)
    # explicit cells ({"label", "set"}) crossed with the grid; [] = the grid alone
    cells: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    preset: Mapped[str | None] = mapped_column(String(100), nullable=True)  # it reproduces
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Tune(Base):
    """A tuned comparison (`worker.tune.service`): its request (`spec`, as the API took
    it), where it stands, and the experiment of its final runs once they exist. Its
    studies live in Optuna's storage (`worker.tune.storage`), its trials are runs tagged
    `tune:<id>`."""

    __tablename__ = "tunes"
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    spec: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(20), default="tuning")  # tuning, final, done
    experiment_id: Mapped[int | None] = mapped_column(
        ForeignKey("experiments.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Run(Base):
    __tablename__ = "runs"
    __table_args__ = (
        Index("ix_runs_status", "status"),
        Index("ix_runs_experiment", "experiment_id"),
        # An id is never reused, so links stay valid (on Postgres, sequences never go back).
        {"sqlite_autoincrement": True},
    )
    __mapper_args__ = {"eager_defaults": False}  # noqa: RUF012  (SQLAlchemy reads it)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(400))
    notes: Mapped[str] = mapped_column(Text, default="")
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    algorithm: Mapped[str] = mapped_column(String(COMPONENT_NAME_MAX))
    dataset: Mapped[str] = mapped_column(String(COMPONENT_NAME_MAX))
    availability: Mapped[str] = mapped_column(String(COMPONENT_NAME_MAX))
    seed: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: not given
    n_clients: Mapped[int] = mapped_column(Integer)
    # Rounds after which an external run's availability repeats, as it declared them (its
    # summary's "x̄ last period"); NULL when it declared none, and for simulated runs,
    # whose engine knows its availability model. A database default, as `source`'s: an
    # insert that leaves it NULL leaves the column out.
    availability_period: Mapped[int | None] = mapped_column(
        Integer, nullable=True, server_default=text("NULL")
    )
    queue: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20), default="queued")
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    # Kept with its records, left out of the runs list unless asked for.
    archived: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))
    rounds_total: Mapped[int] = mapped_column(Integer)
    rounds_done: Mapped[int] = mapped_column(Integer, default=0)
    metric_names: Mapped[list[str]] = mapped_column(JSON, default=list)
    summary: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    worker: Mapped[str | None] = mapped_column(String(200), nullable=True)
    # Token of the current execution, new at every claim: writes of an execution whose
    # run was taken over (it went silent past the lease) find another token and stop.
    claim: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # Executions that ended without storing an outcome; see `db.runs.CRASHES_BEFORE_HOLD`.
    crashes: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    # The database's default only, not fetched back by the insert (`eager_defaults`): an
    # insert that does not set it leaves the column out, as those of the tests that fill
    # a database at an earlier revision.
    source: Mapped[str] = mapped_column(String(20), server_default=text("'simulated'"))
    experiment_id: Mapped[int | None] = mapped_column(
        ForeignKey("experiments.id", ondelete="SET NULL"), nullable=True
    )
    cell: Mapped[str | None] = mapped_column(String(400), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # When it last entered its queue (submitted, resumed, queued again after a crash or a
    # stop: each puts it at the tail); NULL for external runs.
    queued_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    tag_rows: Mapped[list[RunTag]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, lazy="selectin", order_by="RunTag.tag"
    )

    @property
    def progress(self) -> float:
        return self.rounds_done / self.rounds_total if self.rounds_total else 0.0

    @property
    def tags(self) -> list[str]:
        return [row.tag for row in self.tag_rows]


# The order queued runs start in, and the places in the queue shown for them.
QUEUE_ORDER = (Run.queued_at.asc(), Run.id.asc())


class RunTag(Base):
    """A label on a run, set with `PATCH /api/runs/{id}`; the runs list filters by it."""

    __tablename__ = "run_tags"
    __table_args__ = (Index("ix_run_tags_tag", "tag"),)

    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    tag: Mapped[str] = mapped_column(String(TAG_MAX), primary_key=True)


class RoundClients(Base):
    """Who was available, who was selected, and the aggregation weights of one round.

    `gaps[i]` = rounds since `selected[i]` was last selected before (round + 1 for a
    first selection), written by the recorder so staleness needs no sort by client.
    `timeline`: the round in simulated time, for runs with a system model
    (`db.packing.pack_timeline`); `timeline_begin`: when its clients began, where not
    at its start (an async server update's; `db.packing.pack_begins`). `clients`: in
    round 0's row of a simulated run, each client's data share and device time
    (`db.packing.pack_facts`).
    """

    __tablename__ = "round_clients"

    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    available: Mapped[bytes] = mapped_column(LargeBinary)
    selected: Mapped[bytes] = mapped_column(LargeBinary)
    gaps: Mapped[bytes] = mapped_column(LargeBinary)
    weights: Mapped[bytes] = mapped_column(LargeBinary)
    client_acc: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    timeline: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    timeline_begin: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    clients: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)


class Checkpoint(Base):
    """The latest engine state of a run, readable by any worker that resumes it."""

    __tablename__ = "checkpoints"

    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    round: Mapped[int] = mapped_column(Integer)
    state: Mapped[bytes] = mapped_column(LargeBinary)
    saved_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class RunModel(Base):
    """A run's final global model as a file (safetensors): a simulated run's, stored with
    its last rounds; an external run's, as its own code attached it. Deleted with the
    run. Its bytes are its `RunModelPart`s, so that no one reads or writes it whole."""

    __tablename__ = "run_models"

    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    size: Mapped[int] = mapped_column(Integer)
    saved_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class RunModelPart(Base):
    """One part of a run's model file: its bytes from `seq * db.run_models.PART_BYTES`
    (the last part shorter). Deleted with its model."""

    __tablename__ = "run_model_parts"

    run_id: Mapped[int] = mapped_column(
        ForeignKey("run_models.run_id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class MetricChunk(Base):
    """One metric (`wall_s` included) over `db.series.CHUNK` consecutive rounds, packed:
    the rounds that recorded it (bitmap) and their values (float64, NaN where not
    finite). Rewritten as the rounds land; a round already stored is never changed."""

    __tablename__ = "metric_chunks"

    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    name: Mapped[str] = mapped_column(String(METRIC_NAME_MAX), primary_key=True)
    chunk: Mapped[int] = mapped_column(Integer, primary_key=True)
    present: Mapped[bytes] = mapped_column(LargeBinary)
    values: Mapped[bytes] = mapped_column(LargeBinary)


class StalenessMark(Base):
    """Every `db.marks.MARK_EVERY` rounds t, each client k's accumulated staleness
    S_k(t) = Σ_{u<t} (u − L_k(u)) (int64) and its last selection L_k(t − 1) (int32,
    −1 if none): the staleness matrix reads a few hundred of these rows. `gaps`: how
    many selections in the rounds [t − MARK_EVERY, t) came after each gap length
    (`db.marks.pack_gap_counts`), from which the staleness distribution is counted
    exactly; null in marks written before it existed."""

    __tablename__ = "staleness_marks"

    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    total: Mapped[bytes] = mapped_column(LargeBinary)
    last: Mapped[bytes] = mapped_column(LargeBinary)
    gaps: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
