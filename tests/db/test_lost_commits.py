"""Transactions whose connection dropped at the commit are retried: those the server
rolled back are written whole, and those it committed (the acknowledgement was lost)
are written again without changing anything."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import Table, select
from sqlalchemy.orm import Session, sessionmaker

from db.migrate import upgrade
from db.models import MetricChunk, RoundClients, Run, StalenessMark
from db.runs import load_checkpoint
from db.session import make_engine, make_sessionmaker
from db.settings import Settings
from tests.db.commit_proxy import CommitProxy
from tests.db.databases import postgres_database
from tests.db.logs import OnLog
from tests.db.records import make_run, record
from worker.claims import claim_execution, store_outcome
from worker.recorder import Recorder


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    with postgres_database() as url:
        upgrade(url)
        yield url


@pytest.fixture
def sessions(pg_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(pg_url)
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture
def proxy(pg_url: str) -> Iterator[CommitProxy]:
    proxy = CommitProxy(pg_url)
    yield proxy
    proxy.close()


@pytest.fixture
def lossy(proxy: CommitProxy) -> Iterator[sessionmaker[Session]]:
    """Sessions whose connections go through the proxy."""
    engine = make_engine(proxy.url)
    yield make_sessionmaker(engine)
    engine.dispose()


def record_all(sessions: sessionmaker[Session], run_id: int, arm: Callable[[], None]) -> None:
    """Twelve rounds of three clients in batches of four, a checkpoint after round 5;
    `arm` is called after the recorder read the run's history."""
    recorder = Recorder(sessions, run_id, 3, flush_rounds=4, flush_seconds=60, retry_s=30)
    arm()
    for t in range(12):
        recorder.on_round(record(t, [0, 1, 2], [t % 3, (t + 1) % 3], {"test_acc": t / 12}))
        if t == 5:
            recorder.on_checkpoint({"round": t + 1, "memory": [t]})
    recorder.close()


def stored(sessions: sessionmaker[Session], run_id: int) -> dict[str, Any]:
    """Everything the recorder wrote for the run, without the run's id."""
    found: dict[str, Any] = {}
    with sessions() as session:
        for model in (RoundClients, StalenessMark, MetricChunk):
            table: Table = model.__table__  # type: ignore[assignment]
            rows = session.execute(select(table).where(table.c.run_id == run_id)).mappings()
            found[table.name] = sorted(
                (tuple(v for k, v in row.items() if k != "run_id") for row in rows), key=repr
            )
        run = session.get_one(Run, run_id)
        found["progress"] = (run.rounds_done, run.metric_names)
        found["checkpoint"] = load_checkpoint(session, run_id)
    return found


@pytest.mark.parametrize("committed", [False, True], ids=["rolled-back", "committed"])
def test_batch_whose_commit_was_cut_off_is_written_once(
    sessions: sessionmaker[Session],
    lossy: sessionmaker[Session],
    proxy: CommitProxy,
    committed: bool,
) -> None:
    expected = make_run(sessions, 3, 12)
    record_all(sessions, expected, lambda: None)
    run_id = make_run(sessions, 3, 12)
    with OnLog("db.retry", f"run {run_id}: record the rounds before 4: database") as retried:
        record_all(lossy, run_id, lambda: proxy.arm(deliver=committed))
    assert proxy.lost == 1 and len(retried.messages) == 1
    assert stored(sessions, run_id) == stored(sessions, expected)
    assert len(stored(sessions, run_id)["round_clients"]) == 12


def test_claim_and_outcome_whose_acknowledgements_were_lost(
    sessions: sessionmaker[Session], lossy: sessionmaker[Session], proxy: CommitProxy, pg_url: str
) -> None:
    settings = Settings(database_url=pg_url, lease_s=60, db_retry_s=30)
    run_id = make_run(sessions, 2, 8)
    proxy.arm(deliver=True)
    with OnLog("db.retry", f"claim run {run_id}: database unavailable") as retried:
        claimed = claim_execution(lossy, run_id, "first", settings)
    assert proxy.lost == 1 and len(retried.messages) == 1
    assert claimed is not None  # the retry knows the claim on record as its own
    proxy.arm(deliver=True)
    assert store_outcome(lossy, run_id, "succeeded", {"x": 1.0}, None, claimed.claim, settings)
    assert proxy.lost == 2
    with sessions() as session:
        run = session.get_one(Run, run_id)
        assert (run.status, run.worker, run.claim, run.summary) == (
            "succeeded",
            "first",
            claimed.claim,
            {"x": 1.0},
        )
