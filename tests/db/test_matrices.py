from __future__ import annotations

import numpy as np
from sqlalchemy.orm import Session, sessionmaker

from db import matrices
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
