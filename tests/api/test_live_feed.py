"""The live feed's watch: each round's event and each status's encoded once, whatever
the number of viewers (`api/live.py`)."""

from __future__ import annotations

from api.live import BATCH, Watch, event


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
    assert watch.status_event == event("status", status)
    shown = watch.status_event
    watch.update(dict(status), [], 1)  # the same status again: nothing re-encoded
    assert watch.status_event is shown
    watch.update({"status": "succeeded", "rounds_done": 2}, [], 1)
    assert '"succeeded"' in watch.status_event


def test_rows_after_by_hand() -> None:
    watch = Watch()
    watch.update({"status": "running"}, [{"round": r} for r in range(BATCH + 10)], BATCH + 9)
    assert watch.rows_after(BATCH + 9) == []  # nothing new
    after = watch.rows_after(4)
    assert after is not None and after[0][0] == 5 and len(after) == BATCH
    watch.rows = watch.rows[100:]  # the cache no longer reaches back to round 5
    assert watch.rows_after(4) is None
