from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from db import matrices
from db.models import RoundClients
from db.packing import unpack_gaps
from tests.db.records import make_run, record, write


def brute_force_staleness(selected: list[list[int]], n_clients: int) -> np.ndarray:
    """(clients, rounds): rounds since the last selection, t + 1 before the first one."""
    last = np.full(n_clients, -1)
    out = np.zeros((n_clients, len(selected)))
    for t, ids in enumerate(selected):
        last[ids] = t
        out[:, t] = t - last
    return out


def bucket_means(full: np.ndarray, cw: int, rw: int) -> np.ndarray:
    rows = [full[i : i + cw] for i in range(0, full.shape[0], cw)]
    return np.array([[r[:, j : j + rw].mean() for j in range(0, full.shape[1], rw)] for r in rows])


def test_hand_computed_matrices(sessions: sessionmaker[Session]) -> None:
    # 3 clients, 4 rounds; client 2 never selected.
    available = [[0, 1], [0], [1, 2], [0, 1, 2]]
    selected = [[0], [0], [1], [1]]
    run_id = make_run(sessions, 3, 4)
    write(
        sessions,
        run_id,
        3,
        [record(t, a, s) for t, (a, s) in enumerate(zip(available, selected, strict=True))],
    )
    with sessions() as session:
        avail = matrices.availability(session, run_id, 3, 3, 2)
        sel = matrices.selection(session, run_id, 3, 3, 2)
        stale = matrices.staleness(session, run_id, 3, 2, 4)
    assert avail.clients == [0, 1, 2] and avail.rounds == [0, 2]
    assert avail.values == [[1.0, 0.5], [0.5, 1.0], [0.0, 1.0]]
    assert sel.values == [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
    # staleness per round: client 0: 0 0 1 2; client 1: 1 2 0 0; client 2: 1 2 3 4
    assert stale.clients == [0, 2]
    assert stale.values == [[0.5, 1.0, 0.5, 1.0], [1.0, 2.0, 3.0, 4.0]]


def test_staleness_equals_the_brute_force_grid(sessions: sessionmaker[Session]) -> None:
    rng = np.random.default_rng(3)
    n, rounds = 23, 157
    selected = [
        sorted(rng.choice(n, size=rng.integers(0, 5), replace=False).tolist())
        for _ in range(rounds)
    ]
    run_id = make_run(sessions, n, rounds)
    write(sessions, run_id, n, [record(t, s, s) for t, s in enumerate(selected)])
    with sessions() as session:
        got = matrices.staleness(session, run_id, n, 5, 10)
    assert got.clients == [0, 5, 10, 15, 20]
    assert got.rounds == list(range(0, rounds, 16))
    expected = bucket_means(brute_force_staleness(selected, n), 5, 16)
    np.testing.assert_allclose(got.values, expected, atol=1e-6)


def stored_gaps(sessions: sessionmaker[Session], run_id: int) -> list[list[int]]:
    with sessions() as session:
        rows = session.execute(
            select(RoundClients.selected, RoundClients.gaps)
            .where(RoundClients.run_id == run_id)
            .order_by(RoundClients.round)
        ).all()
    counts = np.array([len(s) // 2 for s, _ in rows])
    flat = unpack_gaps([g for _, g in rows], counts).tolist()
    ends = np.cumsum(counts).tolist()
    return [flat[end - n : end] for n, end in zip(counts.tolist(), ends, strict=True)]


def test_staleness_with_every_bound_on_a_mark(sessions: sessionmaker[Session]) -> None:
    # 128 rounds in 4 columns of 32: every bound is a mark, no round is read in between.
    rng = np.random.default_rng(5)
    n, rounds = 6, 128
    selected = [sorted(rng.choice(n, size=2, replace=False).tolist()) for _ in range(rounds)]
    run_id = make_run(sessions, n, rounds)
    write(sessions, run_id, n, [record(t, s, s) for t, s in enumerate(selected)])
    with sessions() as session:
        got = matrices.staleness(session, run_id, n, n, 4)
    assert got.rounds == [0, 32, 64, 96]
    expected = bucket_means(brute_force_staleness(selected, n), 1, 32)
    np.testing.assert_allclose(got.values, expected, atol=1e-6)


def test_recorder_stores_gaps_since_the_previous_selection(
    sessions: sessionmaker[Session],
) -> None:
    # 3 clients; a first selection at round t has gap t + 1. Batches of 4 rounds.
    selected = [[0], [0, 1], [], [2, 1], [0], [1]]
    run_id = make_run(sessions, 3, len(selected))
    write(sessions, run_id, 3, [record(t, s, s) for t, s in enumerate(selected)])
    assert stored_gaps(sessions, run_id) == [[1], [1, 2], [], [4, 2], [3], [2]]


def random_selections(seed: int, n: int, rounds: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [rng.choice(n, size=rng.integers(0, 5), replace=False).tolist() for _ in range(rounds)]


def test_resumed_run_continues_the_stored_history(sessions: sessionmaker[Session]) -> None:
    # A worker recorded rounds 0..89 and died; its checkpoint was at round 70, so the
    # next worker replays 70..89 (its rows already stored) and goes on to round 156.
    n, rounds = 23, 157
    selected = random_selections(4, n, rounds)
    records = [record(t, s, s) for t, s in enumerate(selected)]
    run_id = make_run(sessions, n, rounds)
    write(sessions, run_id, n, records[:90])
    write(sessions, run_id, n, records[70:], start_round=70)
    uninterrupted = make_run(sessions, n, rounds)
    write(sessions, uninterrupted, n, records)
    assert stored_gaps(sessions, run_id) == stored_gaps(sessions, uninterrupted)
    with sessions() as session:
        got = matrices.staleness(session, run_id, n, 5, 10)
    expected = bucket_means(brute_force_staleness(selected, n), 5, 16)
    np.testing.assert_allclose(got.values, expected, atol=1e-6)


def test_replayed_rounds_keep_their_stored_selections(sessions: sessionmaker[Session]) -> None:
    # The replay of rounds 30..49 selects differently (a non-deterministic device): the
    # stored rows win, and the gaps of rounds 50.. follow the selections on record.
    n, rounds = 11, 80
    first = random_selections(5, n, 50)
    replay = random_selections(6, n, rounds)
    run_id = make_run(sessions, n, rounds)
    write(sessions, run_id, n, [record(t, s, s) for t, s in enumerate(first)])
    write(sessions, run_id, n, [record(t, replay[t], replay[t]) for t in range(30, rounds)], 30)
    on_record = first + replay[50:]
    with sessions() as session:
        got = matrices.staleness(session, run_id, n, n, rounds)
    np.testing.assert_allclose(got.values, brute_force_staleness(on_record, n), atol=1e-6)


def test_gaps_beyond_two_bytes(sessions: sessionmaker[Session]) -> None:
    # Rounds 0 and 70 000 only: client 1's first selection has gap 70 001.
    run_id = make_run(sessions, 2, 70_001)
    write(sessions, run_id, 2, [record(0, [0], [0]), record(70_000, [0, 1], [1, 0])])
    assert stored_gaps(sessions, run_id) == [[1], [70_001, 70_000]]
    selected: list[list[int]] = [[] for _ in range(70_001)]
    selected[0], selected[70_000] = [0], [0, 1]
    with sessions() as session:
        got = matrices.staleness(session, run_id, 2, 2, 7)
    expected = bucket_means(brute_force_staleness(selected, 2), 1, 10_001)
    np.testing.assert_allclose(got.values, expected, atol=1e-6)


def test_latest_client_accuracy(sessions: sessionmaker[Session]) -> None:
    run_id = make_run(sessions, 2, 3)
    with sessions() as session:
        assert matrices.client_accuracy(session, run_id) == (None, None)
    records = [
        record(0, [0], [0], client_acc=[0.5, 0.25]),
        record(1, [0], [0], client_acc=[0.75, float("nan")]),
        record(2, [0], [0]),
    ]
    write(sessions, run_id, 2, records)
    with sessions() as session:
        assert matrices.client_accuracy(session, run_id) == (1, [0.75, None])


def test_availability_of_a_live_run_ignores_rounds_committed_meanwhile(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rounds 4..9 commit right after the query has read the rows of rounds 0..3, as a
    # live run's recorder does between two reads of the same request.
    run_id = make_run(sessions, 2, 10)
    write(sessions, run_id, 2, [record(t, [0, 1], [t % 2]) for t in range(4)])
    load = matrices._load
    pending = [[record(t, [0, 1], [t % 2]) for t in range(4, 10)]]

    def load_then_record_more(*args: Any) -> Any:
        loaded = load(*args)
        if pending:  # once: the recorder reads through _load too
            write(sessions, run_id, 2, pending.pop(), start_round=4)
        return loaded

    monkeypatch.setattr(matrices, "_load", load_then_record_more)
    with sessions() as session:
        avail = matrices.availability(session, run_id, 2, 2, 10)
    assert avail.rounds == [0, 1, 2, 3] and avail.values == [[1.0] * 4, [1.0] * 4]
