from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from db.metric_values import downsample, final_values, full_series, round_rows
from db.models import Run
from tests.db.records import make_run, record, write

VALUES = [5.0, 1.0, 7.0, 3.0, 9.0, 2.0, 8.0, 4.0, 6.0, 0.0]


def ten_rounds(sessions: sessionmaker[Session]) -> int:
    run_id = make_run(sessions, 2, 10)
    records = [record(t, [0, 1], [t % 2], {"loss": v}) for t, v in enumerate(VALUES)]
    write(sessions, run_id, 2, records)
    return run_id


def test_buckets_keep_min_max_and_last(sessions: sessionmaker[Session]) -> None:
    run_id = ten_rounds(sessions)
    with sessions() as session:
        s = downsample(session, run_id, ["loss"], 0, 9, 4)["loss"]
    # width ceil(10/4) = 3: rounds 0-2, 3-5, 6-8, 9
    assert s.round == [2, 5, 8, 9]
    assert s.min == [1.0, 2.0, 4.0, 0.0]
    assert s.max == [7.0, 9.0, 8.0, 0.0]
    assert s.last == [7.0, 2.0, 6.0, 0.0]


def test_range_and_unknown_names(sessions: sessionmaker[Session]) -> None:
    run_id = ten_rounds(sessions)
    with sessions() as session:
        series = downsample(session, run_id, ["loss", "nope"], 4, 7, 2)
    assert series["loss"].round == [5, 7]
    assert series["loss"].last == [2.0, 4.0]
    assert series["loss"].max == [9.0, 8.0]
    assert series["nope"].round == []


def test_rewriting_rounds_keeps_one_row_each(sessions: sessionmaker[Session]) -> None:
    run_id = ten_rounds(sessions)
    write(sessions, run_id, 2, [record(3, [0], [0], {"loss": 99.0})])
    with sessions() as session:
        count = sum(len(full_series(session, run_id, name)[0]) for name in ("loss", "wall_s"))
        rows = round_rows(session, run_id, 2, 2)
        run = session.get(Run, run_id)
        assert run is not None
        assert run.metric_names == ["loss", "wall_s"]
    assert count == 20  # loss and wall_s for 10 rounds
    assert rows == [
        {"round": 3, "loss": 3.0, "wall_s": 0.4},
        {"round": 4, "loss": 9.0, "wall_s": 0.5},
    ]


def test_final_values_take_each_metric_at_its_last_round(sessions: sessionmaker[Session]) -> None:
    run_id = make_run(sessions, 2, 3)
    write(
        sessions,
        run_id,
        2,
        [record(0, [0], [0], {"a": 1.0, "b": 5.0}), record(1, [0], [0], {"a": 2.0})],
    )
    with sessions() as session:
        assert final_values(session, run_id, ["a", "b", "c"]) == {"a": 2.0, "b": 5.0}
