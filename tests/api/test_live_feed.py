"""The live feed's watch: each round's event and each status's encoded once, and what a
stream sends from a position joined once, whatever the number of viewers (`api/live.py`)."""

from __future__ import annotations

from api.live import BATCH, Chunk, Watch, event


def test_event_by_hand() -> None:
    assert event("round", {"round": 3, "x": 0.5}, 3) == (
        'event: round\nid: 3\ndata: {"round":3,"x":0.5}\n\n'
    )
    assert event("status", {"status": "running"}) == (
        'event: status\ndata: {"status":"running"}\n\n'
    )


def test_each_event_encoded_once_for_every_viewer() -> None:
    watch = Watch()
    status = {"status": "running", "rounds_done": 2}
    watch.update(status, [{"round": 0}, {"round": 1}], 1)
    first, second = watch.rows_after(-1), watch.rows_after(-1)
    assert first is not None and second is not None
    assert [r for r, _ in first] == [0, 1]
    assert all(a[1] is b[1] for a, b in zip(first, second, strict=True))  # one string
    assert watch.status_event == event("status", status).encode()
    shown = watch.status_event
    watch.update(dict(status), [], 1)  # the same status again: nothing re-encoded
    assert watch.status_event is shown
    watch.update({"status": "succeeded", "rounds_done": 2}, [], 1)
    assert b'"succeeded"' in watch.status_event


def test_rows_after_by_hand() -> None:
    watch = Watch()
    watch.update({"status": "running"}, [{"round": r} for r in range(BATCH + 10)], BATCH + 9)
    assert watch.rows_after(BATCH + 9) == []  # nothing new
    after = watch.rows_after(4)
    assert after is not None and after[0][0] == 5 and len(after) == BATCH
    watch.rows = watch.rows[100:]  # the cache no longer reaches back to round 5
    assert watch.rows_after(4) is None


def test_a_chunk_by_hand_and_shared_by_every_viewer_at_its_position() -> None:
    watch = Watch()
    status = {"status": "running", "rounds_done": 3}
    watch.update(status, [{"round": r} for r in range(3)], 2)
    rounds = [event("round", {"round": r}, r).encode() for r in range(3)]

    with_status = watch.chunk(0, True)
    assert with_status == Chunk(last=2, rounds=2, data=rounds[1] + rounds[2] + watch.status_event)
    assert watch.chunk(0, True) is with_status  # joined once for every viewer there
    assert watch.chunk(0, False) == Chunk(last=2, rounds=2, data=rounds[1] + rounds[2])
    assert watch.chunk(2, False) == Chunk(last=2, rounds=0, data=b"")  # nothing new
    watch.update({"status": "running", "rounds_done": 4}, [{"round": 3}], 3)
    assert watch.chunk(0, True) is not with_status  # a new read: joined again
    watch.rows = watch.rows[2:]  # the cache no longer reaches back to round 1
    watch.chunks = {}
    assert watch.chunk(0, True) is None
