"""The client timeline in simulated time, by hand, from rounds written by the recorder."""

from __future__ import annotations

import numpy as np
from sqlalchemy.orm import Session, sessionmaker

from db.packing import pack_begins, pack_timeline, unpack_timeline
from db.timeline import client_timeline
from tests.db.records import make_run, record, write
from worker.engine import RoundRecord
from worker.engine.records import ClientTimeline


def timed(
    t: int,
    available: list[int],
    end_s: float,
    start: float,
    rows: list[tuple[float, ...]],
    begin: list[float] | None = None,
) -> RoundRecord:
    """Round t ending at `end_s`; `rows`: (id, download end, compute end, end, outcome);
    `begin`: when each began, where not at `start`."""
    ids, download, compute, end, outcome = (np.array(c) for c in zip(*rows, strict=True))
    r = record(t, available, ids[outcome <= 2].astype(int).tolist(), {"sim_time_s": end_s})
    r.timeline = ClientTimeline(
        ids.astype(np.int64),
        start,
        download,
        compute,
        end,
        outcome.astype(np.int8),
        None if begin is None else np.array(begin),
    )
    return r


def test_packed_timeline_round_trips() -> None:
    ends = np.array([[0.5, 1.0], [2.0, 3.25], [2.5, 4.0]])
    blob = pack_timeline(100.0, np.array([3, 70_000]), ends + 100.0, np.array([1, 4]), 80_000)

    t = unpack_timeline(blob, 80_000)

    assert t.start == 100.0 and t.ids.tolist() == [3, 70_000]
    assert np.array_equal(np.stack([t.download, t.compute, t.end]), ends)
    assert t.outcome.tolist() == [1, 4]
    assert t.begin.tolist() == [0.0, 0.0]
    began = unpack_timeline(blob, 80_000, pack_begins(100.0, np.array([90.5, 100.0])))
    assert began.begin.tolist() == [-9.5, 0.0]


def test_hand_computed_timeline(sessions: sessionmaker[Session]) -> None:
    # Round 0 (0–5 s): client 0 kept at 2.5, client 1 partial at 4, client 2 dropped at 5.
    # Round 1 starts at 6 (a wait) and ends at 10: client 0 kept at 9, client 1
    # discarded at 10; client 2 is offline.
    rounds = [
        timed(
            0,
            [0, 1, 2],
            5.0,
            0.0,
            [(0, 0.5, 2.0, 2.5, 1), (1, 0.5, 3.0, 4.0, 2), (2, 1.0, 4.5, 5.0, 3)],
        ),
        timed(1, [0, 1], 10.0, 6.0, [(0, 6.5, 8.0, 9.0, 1), (1, 6.2, 7.0, 10.0, 4)]),
    ]
    run_id = make_run(sessions, 3, 2)
    write(sessions, run_id, 3, rounds)

    with sessions() as session:
        t = client_timeline(session, run_id, 3, max_clients=3, max_buckets=10)
        late = client_timeline(session, run_id, 3, 3, 4, start_s=6.0, end_s=10.0)

    assert t.clients == [0, 1, 2] and t.width_s == 1.0
    assert t.times == [float(s) for s in range(10)]
    # 0 offline, 1 online, 2 training, 3 uploading, 4 kept, 5 partial, 6 dropped
    assert t.states == [
        [2, 2, 4, 1, 1, 0, 2, 2, 3, 4],
        [2, 2, 2, 3, 5, 0, 2, 3, 3, 6],
        [2, 2, 2, 2, 3, 6, 0, 0, 0, 0],
    ]
    assert late.states == [[2, 2, 3, 4], [2, 3, 3, 6], [0, 0, 0, 0]]


def test_async_updates_draw_each_client_from_when_it_began(
    sessions: sessionmaker[Session],
) -> None:
    # Server update 0 (0–4 s): c0 kept at 3, c1 at 4, both began at 0. Update 1 (4–9 s):
    # c2, which began at 0 on version 0, kept at 9; c0, restarted at 3, kept at 6.
    rounds = [
        timed(0, [0, 1, 2], 4.0, 0.0, [(0, 1, 2, 3, 1), (1, 0.5, 3.5, 4, 1)], [0.0, 0.0]),
        timed(1, [0, 1, 2], 9.0, 4.0, [(2, 2, 7, 9, 1), (0, 4, 5, 6, 1)], [0.0, 3.0]),
    ]
    run_id = make_run(sessions, 3, 2)
    write(sessions, run_id, 3, rounds)

    with sessions() as session:
        t = client_timeline(session, run_id, 3, max_clients=3, max_buckets=9)

    # 1 online, 2 training, 3 uploading, 4 kept; c2 trains from 0 s, not from 4 s
    assert t.states == [
        [2, 2, 3, 4, 2, 3, 4, 1, 1],
        [2, 2, 2, 3, 4, 1, 1, 1, 1],
        [2, 2, 2, 2, 2, 2, 2, 3, 4],
    ]


def test_a_run_without_simulated_time_has_an_empty_timeline(
    sessions: sessionmaker[Session],
) -> None:
    run_id = make_run(sessions, 4, 2)
    write(sessions, run_id, 4, [record(0, [0, 1], [0]), record(1, [2], [2])])

    with sessions() as session:
        t = client_timeline(session, run_id, 4, max_clients=2, max_buckets=10)

    assert (t.clients, t.times, t.states) == ([0, 2], [], [[], []])
