from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from sqlalchemy import delete, select
from sqlalchemy.orm import Session, sessionmaker

from db import marks, matrices
from db.marks import SelectionTally, unpack_mark
from db.models import StalenessMark
from tests.db.records import make_run, record, write
from tests.db.test_matrices import brute_force_staleness, bucket_means, random_selections


def test_tally_hand_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    # 2 clients, selections [0], [], [1], [0]; a mark every 2 rounds.
    # staleness: client 0: 0 1 2 0, client 1: 1 2 0 1 -> S(2) = (1, 3), S(4) = (3, 4)
    monkeypatch.setattr(marks, "MARK_EVERY", 2)
    tally = SelectionTally.empty(7, 2)
    steps = [tally.advance(t, np.array(ids)) for t, ids in enumerate([[0], [], [1], [0]])]
    assert [g.tolist() for g, _ in steps] == [[1], [], [3], [3]]
    due = [m for _, ms in steps for m in ms]
    assert [(m["run_id"], m["round"]) for m in due] == [(7, 2), (7, 4)]
    unpacked = [unpack_mark(m["total"], m["last"]) for m in due]
    assert [(s.tolist(), ell.tolist()) for s, ell in unpacked] == [
        ([1, 3], [0, -1]),
        ([3, 4], [3, 2]),
    ]


def test_rounds_never_recorded_count_as_rounds_without_selection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(marks, "MARK_EVERY", 2)
    tally = SelectionTally.empty(1, 2)
    tally.advance(0, np.array([0]))
    gaps, due = tally.advance(5, np.array([1, 0]))
    assert gaps.tolist() == [6, 5]
    assert [m["round"] for m in due] == [2, 4, 6]
    full = brute_force_staleness([[0], [], [], [], [], [1, 0]], 2)
    for m in due:
        total, _ = unpack_mark(m["total"], m["last"])
        assert total.tolist() == full[:, : m["round"]].sum(axis=1).tolist()


@pytest.mark.parametrize("max_rounds", [1, 3, 7, 9, 100, 300])
def test_staleness_at_bounds_off_the_marks(
    sessions: sessionmaker[Session], max_rounds: int
) -> None:
    # 300 rounds: column widths 300, 100, 43, 34, 3 and 1 put bounds on and off the
    # marks (every 32 rounds); a resumed worker wrote rounds 120.. again.
    n, rounds = 17, 300
    selected = random_selections(9, n, rounds)
    records = [record(t, s, s) for t, s in enumerate(selected)]
    run_id = make_run(sessions, n, rounds)
    write(sessions, run_id, n, records[:150])
    write(sessions, run_id, n, records[120:], start_round=120)
    with sessions() as session:
        got = matrices.staleness(session, run_id, n, 4, max_rounds)
    width = -(-rounds // max_rounds)
    expected = bucket_means(brute_force_staleness(selected, n), 5, width)
    np.testing.assert_allclose(got.values, expected, atol=1e-6)


def test_missing_marks_fall_back_to_earlier_ones(sessions: sessionmaker[Session]) -> None:
    n, rounds = 9, 200
    selected = random_selections(10, n, rounds)
    run_id = make_run(sessions, n, rounds)
    write(sessions, run_id, n, [record(t, s, s) for t, s in enumerate(selected)])
    with sessions.begin() as session:
        stored = session.scalars(select(StalenessMark.round)).all()
        session.execute(delete(StalenessMark).where(StalenessMark.round.in_([64, 160])))
    assert 64 in stored and 160 in stored
    with sessions() as session:
        got = matrices.staleness(session, run_id, n, 3, 10)
    expected = bucket_means(brute_force_staleness(selected, n), 3, 20)
    np.testing.assert_allclose(got.values, expected, atol=1e-6)


@pytest.mark.parametrize("batch", [1, 5, 32, 77])
def test_advancing_many_rounds_at_once_equals_round_by_round(batch: int) -> None:
    # Rounds 40..59 never recorded (nobody selected); batches cross marks at every size.
    n = 11
    selected = random_selections(13, n, 200)
    rounds = [t for t in range(200) if not 40 <= t < 60]
    one, many = SelectionTally.empty(3, n), SelectionTally.empty(3, n)
    expected = [one.advance(t, np.array(selected[t], dtype=np.int64)) for t in rounds]
    got: list[tuple[np.ndarray, list[dict[str, Any]]]] = []
    for start in range(0, len(rounds), batch):
        part = rounds[start : start + batch]
        gaps, due = many.advance_many(part, [np.array(selected[t], dtype=np.int64) for t in part])
        split = np.split(gaps, np.cumsum([len(selected[t]) for t in part])[:-1])
        got += [(g, []) for g in split[:-1]] + [(split[-1], due)]
    assert [g.tolist() for g, _ in got] == [g.tolist() for g, _ in expected]
    assert [m for _, ms in got for m in ms] == [m for _, ms in expected for m in ms]
    assert (many.next_round, many.last.tolist()) == (one.next_round, one.last.tolist())
    assert many.totals.tolist() == one.totals.tolist()
    full = brute_force_staleness([s if t in rounds else [] for t, s in enumerate(selected)], n)
    for m in [m for _, ms in got for m in ms]:
        total, _ = unpack_mark(m["total"], m["last"])
        assert total.tolist() == full[:, : m["round"]].sum(axis=1).tolist()


@pytest.mark.parametrize("rounds", [0, 20, 64, 150])
def test_the_tally_continues_from_the_latest_mark(
    sessions: sessionmaker[Session], rounds: int
) -> None:
    n = 11
    selected = random_selections(12, n, rounds)
    run_id = make_run(sessions, n, max(rounds, 1))
    write(sessions, run_id, n, [record(t, s, s) for t, s in enumerate(selected)])
    with sessions.begin() as session:  # a lost mark: an earlier one serves
        session.execute(delete(StalenessMark).where(StalenessMark.round == 128))
    with sessions() as session:
        tally = matrices.selection_tally(session, run_id, n)
    last = np.full(n, -1)
    for t, ids in enumerate(selected):
        last[ids] = t
    staleness = brute_force_staleness(selected, n)
    assert tally.next_round == rounds
    np.testing.assert_array_equal(tally.last, last)
    np.testing.assert_array_equal(tally.totals, staleness.sum(axis=1))
