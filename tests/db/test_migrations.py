from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.orm import Session, sessionmaker

from db.external import new_external_run
from db.migrate import alembic_config, upgrade
from db.models import (
    Base,
    Checkpoint,
    Experiment,
    MetricChunk,
    RoundClients,
    Run,
    RunModelPart,
    StalenessMark,
    utcnow,
)
from db.packing import pack_gaps, pack_ids
from db.run_models import model_part, stored_model
from db.runs import new_run, save_checkpoint
from db.session import make_engine, make_sessionmaker
from tests.db.databases import database
from tests.db.records import make_run, record, write
from worker.engine import run_config_for
from worker.engine.components import current


def test_migrated_schema_matches_the_models(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        context = MigrationContext.configure(session.connection())
        assert compare_metadata(context, Base.metadata) == []


def test_upgrade_twice_is_harmless(db_url: str, sessions: sessionmaker[Session]) -> None:
    upgrade(db_url)
    with sessions() as session:
        context = MigrationContext.configure(session.connection())
        head = ScriptDirectory.from_config(alembic_config(db_url)).get_current_head()
        assert head is not None and context.get_current_revision() == head


ROUND_CLIENTS_0001 = sa.table(
    "round_clients",
    sa.column("run_id", sa.Integer()),
    sa.column("round", sa.Integer()),
    sa.column("available", sa.LargeBinary()),
    sa.column("selected", sa.LargeBinary()),
    sa.column("weights", sa.LargeBinary()),
)


def run_at_0001(sessions: sessionmaker[Session], n_clients: int, rounds: int) -> int:
    """A run row with the columns of revision 0001 only."""
    config = run_config_for(current()).model_validate(
        {"rounds": rounds, "data": {"n_clients": n_clients}, "algorithm": {"participation": 1}}
    )
    run = new_run(config.model_dump(mode="json"), queue="cpu")
    later = ("id", "claim", "crashes", "queued_at")  # id generated; the others came after 0001
    values = {
        c.name: getattr(run, c.name)
        for c in Run.__table__.columns
        if c.name not in later and getattr(run, c.name) is not None
    }
    columns = [c for c in Run.__table__.columns if c.name in values or c.name == "id"]
    table = sa.table("runs", *(sa.column(c.name, c.type) for c in columns))
    with sessions.begin() as session:
        return int(
            session.execute(sa.insert(table).values(values).returning(table.c.id)).scalar_one()
        )


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_upgrade_fills_the_gaps_of_rounds_recorded_before(kind: str, tmp_path: Path) -> None:
    # Two runs of 3 clients recorded under revision 0001; a first selection at round t
    # has gap t + 1.
    selections = [[[0], [0, 2], [], [1, 0]], [[2]]]
    with database(kind, tmp_path) as url:
        command.upgrade(alembic_config(url), "0001")
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        run_ids = [run_at_0001(sessions, 3, len(s)) for s in selections]
        rows = [
            {"run_id": run_id, "round": t, "available": b"\xe0", "selected": pack_ids(ids, 3)}
            for run_id, selected in zip(run_ids, selections, strict=True)
            for t, ids in enumerate(selected)
        ]
        with sessions.begin() as session:
            session.execute(sa.insert(ROUND_CLIENTS_0001).values(weights=b""), rows)
        upgrade(url)
        with sessions() as session:
            stored = session.execute(
                sa.select(RoundClients.run_id, RoundClients.round, RoundClients.gaps).order_by(
                    RoundClients.run_id, RoundClients.round
                )
            ).all()
        engine.dispose()
    gaps = [[1], [1, 2], [], [4, 2], [1]]
    assert [(r, t) for r, t, _ in stored] == [(r["run_id"], r["round"]) for r in rows]
    assert [g for _, _, g in stored] == [pack_gaps(np.array(g, dtype=np.int64)) for g in gaps]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_upgrade_queues_runs_recorded_before_at_their_creation(kind: str, tmp_path: Path) -> None:
    with database(kind, tmp_path) as url:
        command.upgrade(alembic_config(url), "0011")
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        run_ids = [run_at_0001(sessions, 3, 5) for _ in range(2)]
        upgrade(url)
        with sessions() as session:
            runs = [session.get_one(Run, run_id) for run_id in run_ids]
            times = [(run.created_at, run.queued_at) for run in runs]
        engine.dispose()
    assert [queued for _, queued in times] == [created for created, _ in times]
    assert times[0][0] < times[1][0]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_upgrade_summarises_runs_recorded_before(kind: str, tmp_path: Path) -> None:
    # Revision 0003 adds metric chunks and staleness marks; a run recorded under 0002
    # gets exactly the rows the recorder now writes.
    n, rounds = 7, 100
    rng = np.random.default_rng(12)
    records = [
        record(t, [0], rng.choice(n, 2, replace=False).tolist(), {"loss": float(rng.random())})
        for t in range(rounds)
    ]
    with database(kind, tmp_path) as url:
        upgrade(url)
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        run_id = make_run(sessions, n, rounds)
        write(sessions, run_id, n, records)
        written = summaries(sessions)
        command.downgrade(alembic_config(url), "0002")
        upgrade(url)
        backfilled = summaries(sessions)
        engine.dispose()
    assert [r[:3] for r in written[0]] == [(run_id, "loss", 0), (run_id, "wall_s", 0)]
    assert [r[1] for r in written[1]] == [32, 64, 96]
    assert backfilled == written


def summaries(sessions: sessionmaker[Session]) -> tuple[list[tuple[Any, ...]], ...]:
    with sessions() as session:
        c, m = MetricChunk, StalenessMark
        chunks = session.execute(
            sa.select(c.run_id, c.name, c.chunk, c.present, c.values).order_by(c.name, c.chunk)
        ).all()
        marks = session.execute(
            sa.select(m.run_id, m.round, m.total, m.last).order_by(m.round)
        ).all()
    return [tuple(r) for r in chunks], [tuple(r) for r in marks]


def column_storage(url: str) -> dict[str, tuple[str, str]]:
    """(attstorage, attcompression) of the large packed columns: storage 'e' external,
    'x' extended; compression 'l' lz4, '' the server's default (pglz)."""
    engine = make_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT attrelid::regclass::text || '.' || attname, attstorage, attcompression "
                "FROM pg_attribute WHERE (attrelid, attname) IN ("
                "('checkpoints'::regclass, 'state'), ('staleness_marks'::regclass, 'total'), "
                "('staleness_marks'::regclass, 'last'), ('metric_chunks'::regclass, 'values'), "
                "('metric_chunks'::regclass, 'present'))"
            )
        ).all()
    engine.dispose()
    return {name: (storage, compression) for name, storage, compression in rows}


def test_large_values_skip_pglz_on_postgres(tmp_path: Path) -> None:
    # The test server is built with lz4 (Debian's Postgres 15), so every branch runs.
    with database("postgres", tmp_path) as url:
        upgrade(url)
        migrated = column_storage(url)
        command.downgrade(alembic_config(url), "0004")
        before = column_storage(url)
    lz4 = ("x", "l")
    assert migrated == {
        "checkpoints.state": ("e", ""),
        "staleness_marks.total": lz4,
        "staleness_marks.last": lz4,
        "metric_chunks.values": lz4,
        "metric_chunks.present": lz4,
    }
    assert set(before.values()) == {("x", "")}


def add_experiment(sessions: sessionmaker[Session]) -> int:
    with sessions.begin() as session:
        experiment = Experiment(name="sweep", base={}, grid={}, seeds=[0])
        session.add(experiment)
        session.flush()
        return experiment.id


def stored(sessions: sessionmaker[Session]) -> dict[str, list[tuple[Any, ...]]]:
    """The keys of every row of runs, experiments and what hangs off them, and each run's
    experiment."""
    queries = {
        "experiments": sa.select(Experiment.id),
        "runs": sa.select(Run.id, Run.experiment_id),
        "round_clients": sa.select(RoundClients.run_id, RoundClients.round),
        "metric_chunks": sa.select(MetricChunk.run_id, MetricChunk.name, MetricChunk.chunk),
        "staleness_marks": sa.select(StalenessMark.run_id, StalenessMark.round),
        "checkpoints": sa.select(Checkpoint.run_id, Checkpoint.round),
    }
    with sessions() as session:
        return {
            table: [tuple(row) for row in session.execute(query.order_by(*query.selected_columns))]
            for table, query in queries.items()
        }


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_ids_are_never_reused(kind: str, tmp_path: Path) -> None:
    # An experiment of two recorded runs, one with a checkpoint, in a database at 0006
    # (recorded by today's code, then taken down to 0006). The upgrade keeps every row
    # and link (on SQLite it rebuilds both tables, which with foreign keys on would
    # cascade); then the newest run and the experiment are deleted and their ids are not
    # given out again. The downgrade keeps every row too.
    n, rounds = 3, 40
    records = [record(t, [0, 1, 2], [t % n], {"loss": 1 / (t + 1)}) for t in range(rounds)]
    with database(kind, tmp_path) as url:
        upgrade(url)
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        experiment_id = add_experiment(sessions)
        run_ids = [make_run(sessions, n, rounds) for _ in range(2)]
        for run_id in run_ids:
            write(sessions, run_id, n, records)
        with sessions.begin() as session:
            session.execute(sa.update(Run).values(experiment_id=experiment_id))
            save_checkpoint(session, run_ids[1], 20, b"state")
        engine.dispose()
        command.downgrade(alembic_config(url), "0006")
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        recorded = stored(sessions)
        upgrade(url)
        upgraded = stored(sessions)
        with sessions.begin() as session:
            session.delete(session.get(Run, run_ids[1]))
            session.delete(session.get(Experiment, experiment_id))
        new_ids = add_experiment(sessions), make_run(sessions, n, rounds)
        kept = stored(sessions)
        command.downgrade(alembic_config(url), "0006")
        downgraded = stored(sessions)
        engine.dispose()
    assert recorded["runs"] == [(run_ids[0], experiment_id), (run_ids[1], experiment_id)]
    assert len(recorded["round_clients"]) == 2 * rounds and recorded["checkpoints"]
    assert upgraded == recorded
    assert new_ids[0] > experiment_id and new_ids[1] > run_ids[1]
    assert kept["runs"] == [(run_ids[0], None), (new_ids[1], None)]
    assert downgraded == kept


RUN_MODELS_0016 = sa.table(
    "run_models",
    sa.column("run_id", sa.Integer()),
    sa.column("size", sa.Integer()),
    sa.column("data", sa.LargeBinary()),
    sa.column("saved_at", sa.DateTime()),
)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_upgrade_parts_models_stored_whole_before(kind: str, tmp_path: Path) -> None:
    # Two models stored whole under 0016, one of 2.5 parts and one of 3 bytes: the
    # upgrade keeps each as its parts (1 MiB each, the last shorter), and the downgrade
    # puts them back whole.
    files = [bytes(range(256)) * (5 << 11), b"abc"]  # 2.5 MiB, 3 bytes
    with database(kind, tmp_path) as url:
        command.upgrade(alembic_config(url), "0016")
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        run_ids = [run_at_0001(sessions, 3, 5) for _ in files]
        with sessions.begin() as session:
            for run_id, data in zip(run_ids, files, strict=True):
                row = {"run_id": run_id, "size": len(data), "data": data, "saved_at": utcnow()}
                session.execute(sa.insert(RUN_MODELS_0016).values(row))
        upgrade(url)
        with sessions() as session:
            parts = session.execute(
                sa.select(
                    RunModelPart.run_id, RunModelPart.seq, sa.func.length(RunModelPart.data)
                ).order_by(RunModelPart.run_id, RunModelPart.seq)
            ).all()
            read = [b"".join(read_parts(session, run_id)) for run_id in run_ids]
        command.downgrade(alembic_config(url), "0016")
        with sessions() as session:
            whole = session.scalars(sa.select(RUN_MODELS_0016.c.data).order_by("run_id")).all()
        engine.dispose()
    first, second = run_ids
    assert [tuple(p) for p in parts] == [
        (first, 0, 1 << 20), (first, 1, 1 << 20), (first, 2, 1 << 19), (second, 0, 3)
    ]  # fmt: skip
    assert read == files and whole == files


def read_parts(session: Session, run_id: int) -> list[bytes]:
    model = stored_model(session, run_id)
    assert model is not None
    return [model_part(session, run_id, seq, model) or b"" for seq in range(model.parts)]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_upgrade_forgets_the_seed_0_of_external_runs_that_named_none(
    kind: str, tmp_path: Path
) -> None:
    with database(kind, tmp_path) as url:
        command.upgrade(alembic_config(url), "0016")
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        with sessions() as session:
            named, unnamed = (
                new_external_run(
                    name="x", config=config, n_clients=2, rounds=None, experiment_id=None, notes=""
                )
                for config in ({"seed": 7}, {"seed": "a"})
            )
            unnamed.seed = 0  # as it was stored before
            session.add_all([named, unnamed])
            session.commit()
            ids = [named.id, unnamed.id]
        upgrade(url)
        with sessions() as session:
            seeds = [session.get_one(Run, run_id).seed for run_id in ids]
        engine.dispose()
    assert seeds == [7, None]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_upgrade_replaces_the_correlation_in_stored_summaries(kind: str, tmp_path: Path) -> None:
    # Summaries stored under 0016 hold `participation_bias`, a correlation: it goes, and
    # a run that recorded `tv_bias_avg` gets its last value as `participation_tv`, TV(α,
    # p̄) exactly; one that did not (an external run) gets none, and nothing else moves.
    with database(kind, tmp_path) as url:
        upgrade(url)
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        simulated, external = make_run(sessions, 2, 3), make_run(sessions, 2, 3)
        write(
            sessions,
            simulated,
            2,
            [record(t, [0, 1], [0], {"tv_bias_avg": 0.1 * t}) for t in range(3)],
        )
        write(sessions, external, 2, [record(t, [0], [0], {"test_acc": 0.5}) for t in range(3)])
        old = {"participation_bias": 1.0, "best_test_acc": 0.5}
        with sessions.begin() as session:
            for run_id in (simulated, external):
                session.get_one(Run, run_id).summary = old
        command.downgrade(alembic_config(url), "0016")
        upgrade(url)
        with sessions() as session:
            stored = [session.get_one(Run, i).summary for i in (simulated, external)]
        engine.dispose()
    assert stored[0] == {"best_test_acc": 0.5, "participation_tv": pytest.approx(0.2)}
    assert stored[1] == {"best_test_acc": 0.5}
