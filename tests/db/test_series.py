from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from db.metric_values import Series, downsample
from db.models import MetricChunk
from db.series import CHUNK, ChunkWriter, unpack_chunks
from tests.db.records import make_run, record, write

ROUNDS = 700  # chunks 0, 1 and 2 (CHUNK = 256)


def brute_force(values: Mapping[int, float | None], start: int, end: int, width: int) -> Series:
    s = Series()
    buckets: dict[int, list[int]] = {}
    for r in sorted(values):
        if start <= r <= end:
            buckets.setdefault((r - start) // width, []).append(r)
    for rounds in buckets.values():
        finite = [v for r in rounds if (v := values[r]) is not None]
        s.round.append(rounds[-1])
        s.last.append(values[rounds[-1]])
        s.min.append(min(finite) if finite else None)
        s.max.append(max(finite) if finite else None)
    return s


def series_run(sessions: sessionmaker[Session], resumed: bool) -> tuple[int, dict[int, float]]:
    """`loss` every round (some rounds infinite), `acc` every third round; a resumed
    worker's replay of rounds 240..299 (mid-chunk) does not change what is stored."""
    rng = np.random.default_rng(11)
    loss = rng.normal(size=ROUNDS)
    loss[rng.choice(ROUNDS, 20, replace=False)] = math.inf
    records = [
        record(t, [0, 1], [t % 2], {"loss": float(loss[t])} | ({"acc": t / 10} if t % 3 else {}))
        for t in range(ROUNDS)
    ]
    run_id = make_run(sessions, 2, ROUNDS)
    if resumed:
        write(sessions, run_id, 2, records[:300])
        write(sessions, run_id, 2, records[240:], start_round=240)
    else:
        write(sessions, run_id, 2, records)
    return run_id, {t: float(v) for t, v in enumerate(loss)}


@pytest.mark.parametrize(("start", "end", "points"), [(0, 699, 50), (100, 600, 7), (255, 513, 300)])
def test_downsample_equals_the_brute_force_buckets(
    sessions: sessionmaker[Session], start: int, end: int, points: int
) -> None:
    run_id, loss = series_run(sessions, resumed=True)
    acc = {t: t / 10 for t in range(ROUNDS) if t % 3}
    with sessions() as session:
        got = downsample(session, run_id, ["loss", "acc"], start, end, points)
    width = -(-(end - start + 1) // points)
    stored_loss = {t: (v if math.isfinite(v) else None) for t, v in loss.items()}
    assert got["loss"] == brute_force(stored_loss, start, end, width)
    assert got["acc"] == brute_force(acc, start, end, width)


def test_resumed_run_stores_the_same_chunks(sessions: sessionmaker[Session]) -> None:
    def chunks(run_id: int) -> list[tuple[Any, ...]]:
        with sessions() as session:
            c = MetricChunk
            rows = session.execute(
                select(c.name, c.chunk, c.present, c.values)
                .where(c.run_id == run_id, c.name != "wall_s")
                .order_by(c.name, c.chunk)
            ).all()
        return [tuple(r) for r in rows]

    resumed, _ = series_run(sessions, resumed=True)
    uninterrupted, _ = series_run(sessions, resumed=False)
    assert [r[:2] for r in chunks(resumed)] == [(n, c) for n in ("acc", "loss") for c in (0, 1, 2)]
    assert chunks(resumed) == chunks(uninterrupted)


def test_chunk_writer_round_trip() -> None:
    writer = ChunkWriter(3)
    writer.add(1, {"a": 0.5})
    writer.add(CHUNK + 2, {"a": None, "b": 2.0})
    rows = writer.take()
    assert [(r["run_id"], r["name"], r["chunk"]) for r in rows] == [
        (3, "a", 0),
        (3, "a", 1),
        (3, "b", 1),
    ]
    rounds, values = unpack_chunks((r["chunk"], r["present"], r["values"]) for r in rows[:2])
    assert rounds.tolist() == [1, CHUNK + 2]
    assert values[0] == 0.5 and math.isnan(values[1])
    assert writer.take() == []
    writer.add(CHUNK + 3, {"a": 1.0})  # chunk 1 stays open; chunk 0 is forgotten
    assert [(r["name"], r["chunk"]) for r in writer.take()] == [("a", 1)]
    assert sorted(writer.open) == [("a", 1), ("b", 1)]
