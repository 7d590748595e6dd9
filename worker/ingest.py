"""Rounds of external runs, in any order: compared with what is stored (a retried batch
changes nothing, a different rewrite of a stored round is a conflict), then written
through the recorder's packing (`worker.round_rows`), in the caller's transaction.

Rounds may arrive in any order: the processes of one training job each send their own.
A round's selection gaps and the staleness marks depend on every round before it, so
they are computed once those are all stored: the run's settled end T
(`db.matrices.settled_end`) moves on over the stored rounds that follow it without a
gap; a round stored beyond T waits with `PENDING_GAPS`, and every view but staleness
shows it at once. Rounds still missing `window` rounds behind the latest one count as
rounds nobody took part in (a job that logs every tenth round), and a round more than
`window` past the latest is refused, so that a batch makes at most about two windows of
staleness marks due (a single round 10^8 made 3 million of them, for minutes). The
finish settles every round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import bindparam, case, func, select, update
from sqlalchemy.orm import Session

from db.marks import MARK_BYTES_PER_CLIENT, MARK_EVERY
from db.matrices import selection_tally
from db.metric_values import full_series, round_rows
from db.models import MetricChunk, RoundClients, Run, StalenessMark, utcnow
from db.packing import (
    PENDING_GAPS,
    id_dtype,
    pack_acc,
    pack_available,
    pack_gaps_many,
    pack_ids,
    pack_weights,
)
from db.participation import participation
from db.runs import finish_run
from db.series import CHUNK, ChunkWriter
from db.upsert import insert_ignore, upsert_many
from worker.engine import RoundRecord, summarise
from worker.engine.bias import SUMMARY_NAMES, aggregate_share, summary_values
from worker.round_rows import RoundRows

# The staleness marks one window makes due fit this (a mark holds 12 bytes per client).
MAX_MARK_BYTES = 64 * 2**20
STEP = 4096  # stored rounds read at a time while the settled end moves on over them


class Conflict(Exception):
    """The batch contradicts the run's stored rounds or its status (a 409)."""


@dataclass
class Ingested:
    stored: int
    unchanged: int
    rounds_done: int


def window(n_clients: int, rounds: int) -> int:
    """How far rounds may arrive ahead of the latest one (see the module): `rounds`
    (`FEDWATCH_INGEST_WINDOW`), less where the marks of that many rounds of `n_clients`
    would pass MAX_MARK_BYTES."""
    marks = MAX_MARK_BYTES // (n_clients * MARK_BYTES_PER_CLIENT)
    return max(MARK_EVERY, min(rounds, marks * MARK_EVERY))


def ingest_rounds(
    session: Session, run: Run, records: list[RoundRecord], window_rounds: int
) -> Ingested:
    """Store the rounds (in increasing order, ids checked) not stored yet; the stored
    ones must be equal to theirs. Raises `Conflict` with nothing written otherwise."""
    status = _touch(session, run)  # first: locks the run's row until the caller commits
    if status != "running":
        raise Conflict(f"run {run.id} is {status}: it takes no more rounds")
    c = RoundClients
    asked = [r.round for r in records]
    known = set(session.scalars(select(c.round).where(c.run_id == run.id, c.round.in_(asked))))
    old = [r for r in records if r.round in known]
    new = [r for r in records if r.round not in known]
    _check_unchanged(session, run, old)
    tally = selection_tally(session, run.id, run.n_clients)
    latest = _latest(session, run.id)
    ahead = window(run.n_clients, window_rounds)
    for record in new:
        if record.round < tally.next_round:
            raise Conflict(
                f"round {record.round} counts as a round nobody took part in: the rounds "
                f"up to {tally.next_round - 1} are settled (more than the window of {ahead} "
                "rounds behind the latest one)"
            )
        if record.round > latest + ahead:
            raise Conflict(
                f"round {record.round}: too far past the last stored round {latest} for "
                f"{run.n_clients} clients (at most {ahead} rounds ahead); send the rounds "
                "in between first"
            )
    rows = RoundRows(run.id, run.n_clients, tally, ChunkWriter(run.id, _chunks(session, run, new)))
    latest = max(latest, *(r.round for r in new)) if new else latest
    end = None if latest - tally.next_round < ahead else latest - ahead
    settled = _settle(session, rows, {r.round: r for r in new}, end)
    for record in new:
        rows.chunks.add(record.round, {**record.metrics, "wall_s": record.wall_s})
    packed = rows.client_rows(new, [settled.get(r.round, PENDING_GAPS) for r in new])
    insert_ignore(session, RoundClients.__table__, packed)  # type: ignore[arg-type]
    keys = ["run_id", "name", "chunk"]
    upsert_many(session, MetricChunk.__table__, rows.chunks.take(), keys)  # type: ignore[arg-type]
    _progress(session, run, latest + 1, {"wall_s"}.union(*(r.metrics for r in new)))
    return Ingested(len(new), len(old), max(latest + 1, run.rounds_done))


def _settle(
    session: Session, rows: RoundRows, new: dict[int, RoundRecord], behind: int | None
) -> dict[int, bytes]:
    """Move the settled end on: over every round before the mark after `behind` (the
    rounds missing there count as rounds nobody took part in), then over the rounds
    stored or `new` that follow without a gap. Writes the gaps of the stored rounds it
    passes and the marks; returns the packed gaps of the `new` ones."""
    tally = rows.tally
    start = t = tally.next_round
    passed: list[tuple[int, np.ndarray, bool]] = []  # (round, selected, stored already)
    if behind is not None:
        t = (behind // MARK_EVERY + 1) * MARK_EVERY
        stored = _waiting(session, rows, start, t)
        for r in sorted(stored.keys() | {r for r in new if r < t}):
            passed.append((r, stored[r], True) if r in stored else (r, new[r].selected, False))
    while True:
        stored, stop = _waiting(session, rows, t, t + STEP), t + STEP
        while t < stop and (t in stored or t in new):
            passed.append((t, stored[t], True) if t in stored else (t, new[t].selected, False))
            t += 1
        if t < stop:
            break
    if t == start:
        return {}
    rounds, selected = [p[0] for p in passed], [p[1] for p in passed]
    if not rounds or rounds[-1] < t - 1:  # to the mark at t: its rounds before are missing
        rounds.append(t - 1)
        selected.append(np.zeros(0, np.int64))
    gaps, marks = tally.advance_many(rounds, selected)
    packed = dict(zip(rounds, pack_gaps_many(gaps, [len(s) for s in selected]), strict=True))
    waited = [{"r": rows.run_id, "t": r, "g": packed[r]} for r, _, stored in passed if stored]
    if waited:
        c = RoundClients
        stmt = (
            update(c)
            .where(c.run_id == bindparam("r"), c.round == bindparam("t"))
            .values(gaps=bindparam("g"))
        )
        session.connection().execute(stmt, waited)
    insert_ignore(session, StalenessMark.__table__, marks)  # type: ignore[arg-type]
    return {r: packed[r] for r, _, stored in passed if not stored}


def _waiting(session: Session, rows: RoundRows, first: int, end: int) -> dict[int, np.ndarray]:
    """The selected ids of the stored rounds in [first, end)."""
    c = RoundClients
    width = id_dtype(rows.n_clients)
    found = session.execute(
        select(c.round, c.selected).where(c.run_id == rows.run_id, c.round >= first, c.round < end)
    )
    return {t: np.frombuffer(ids, dtype=width).astype(np.int64) for t, ids in found}


def _chunks(
    session: Session, run: Run, records: list[RoundRecord]
) -> list[tuple[str, int, bytes, bytes]]:
    """The stored metric chunks that `records` add to."""
    if not records:
        return []
    names = {"wall_s"}.union(*(r.metrics for r in records))
    chunks = {r.round // CHUNK for r in records}
    c = MetricChunk
    found = session.execute(
        select(c.name, c.chunk, c.present, c.values).where(
            c.run_id == run.id, c.name.in_(names), c.chunk.in_(chunks)
        )
    )
    return [tuple(row) for row in found]  # type: ignore[misc]


def _latest(session: Session, run_id: int) -> int:
    """The highest round stored, −1 before the first."""
    c = RoundClients
    last = session.scalar(select(func.max(c.round)).where(c.run_id == run_id))
    return -1 if last is None else int(last)


def _progress(session: Session, run: Run, end: int, names: set[str]) -> None:
    """The run's rounds done (the round after the highest stored) and metric names, as
    other batches left them: the row is locked, the `run` object may be older."""
    known = session.scalar(select(Run.metric_names).where(Run.id == run.id))
    values: dict[str, Any] = {
        "rounds_done": case((Run.rounds_done < end, end), else_=Run.rounds_done)
    }
    if not names <= set(known or ()):
        values["metric_names"] = sorted(names | set(known or ()))
    session.connection().execute(update(Run).where(Run.id == run.id).values(**values))


def _touch(session: Session, run: Run) -> str:
    """Lock the run's row while it runs (its heartbeat renewed); else its status now."""
    touched = session.execute(
        update(Run)
        .where(Run.id == run.id, Run.status == "running")
        .values(heartbeat_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if touched.rowcount == 1:  # type: ignore[attr-defined]
        return "running"
    status = session.scalar(select(Run.status).where(Run.id == run.id))
    if status is None:
        raise Conflict(f"run {run.id} is gone")
    return status


def _check_unchanged(session: Session, run: Run, records: list[RoundRecord]) -> None:
    """Each record of an already stored round must be what is stored."""
    if not records:
        return
    first, last = records[0].round, records[-1].round
    c = RoundClients
    stored = {
        row.round: row
        for row in session.execute(
            select(c.round, c.available, c.selected, c.weights, c.client_acc).where(
                c.run_id == run.id, c.round.between(first, last)
            )
        )
    }
    metrics = {
        row["round"]: row for row in round_rows(session, run.id, first - 1, last - first + 1)
    }
    n = run.n_clients
    for record in records:
        given: dict[str, Any] = {
            "available": pack_available(record.available, n),
            "selected": pack_ids(record.selected, n),
            "weights": pack_weights(record.weights.ids, record.weights.values, n),
            "client_acc": pack_acc(record.client_acc),
            "metrics": {"round": record.round, **_stored(record.metrics), "wall_s": record.wall_s},
        }
        on_record = {**stored[record.round]._asdict(), "metrics": metrics.get(record.round)}
        changed = [field for field, value in given.items() if on_record[field] != value]
        if changed:
            raise Conflict(
                f"round {record.round} is stored with other {', '.join(changed)}: "
                "a stored round is never rewritten"
            )


def _stored(metrics: dict[str, float]) -> dict[str, float | None]:
    """Metrics as they read back: a value that is not finite is stored as missing."""
    return {k: v if math.isfinite(v) else None for k, v in metrics.items()}


def finish_external(
    session: Session,
    run: Run,
    status: str,
    message: str | None,
    target_acc: float | None,
    finished_at: datetime | None = None,
) -> None:
    """End a running external run with `status` and the summary of its recorded
    metrics, every round settled, at `finished_at` (default: now); finishing it again
    with the same status changes nothing. The run's row is locked first: a batch
    committed before is in the summary, one that waited for the lock finds the run
    finished (a 409)."""
    now = _touch(session, run)
    if now == status:
        return
    if now != "running":
        raise Conflict(f"run {run.id} is {now} already")
    session.refresh(run)  # as the batches committed before the lock left it
    latest = _latest(session, run.id)
    tally = selection_tally(session, run.id, run.n_clients)
    if latest >= tally.next_round:  # every round: the mark after the last one
        rows = RoundRows(run.id, run.n_clients, tally, ChunkWriter(run.id))
        _settle(session, rows, {}, latest)
    summary = summarise(
        _rounds(session, run),
        run.rounds_done,
        _wall_s(session, run, finished_at),
        target_acc,
        period=run.availability_period,
        bias=run_bias(session, run),
    )
    if not finish_run(session, run.id, status, summary, message, finished_at=finished_at):
        raise Conflict(f"run {run.id} is gone")
    if not run.rounds_total:  # unknown up front: the rounds it had
        run.rounds_total = run.rounds_done


def run_bias(session: Session, run: Run) -> dict[str, float | None]:
    """The summary's participation-bias values (`worker.engine.bias`) of the rounds a run
    recorded so far: those the engine reports, from the stored records (an external
    run's data shares taken as uniform). None for a simulated run recorded before its
    clients' data shares were: they are not known."""
    p = participation(session, run.id, run.n_clients)
    if not p.data_known and run.source != "external":
        return dict.fromkeys(SUMMARY_NAMES)
    share = aggregate_share(run.n_clients, p.rounds, p.weight_round, p.weight_ids, p.weights)
    return summary_values(p.data_share, share, p.available_share, p.work_s)


def _rounds(session: Session, run: Run) -> list[tuple[int, dict[str, float]]]:
    """(round, metrics) of every recorded round, in round order; `n_selected`, unless the
    run sent it, counted from the stored selection (as the engine reports it)."""
    by_round: dict[int, dict[str, float]] = {}
    for name in run.metric_names:
        for t, value in zip(*full_series(session, run.id, name), strict=True):
            if value is not None:
                by_round.setdefault(t, {})[name] = value
    width = id_dtype(run.n_clients).itemsize
    c = RoundClients
    sizes = session.execute(
        select(c.round, func.length(c.selected)).where(c.run_id == run.id).order_by(c.round)
    )
    for t, size in sizes:
        by_round.setdefault(t, {}).setdefault("n_selected", size // width)
    return sorted(by_round.items())


def _wall_s(session: Session, run: Run, finished_at: datetime | None) -> float:
    """The run's last reported time since its start, else the time from its start to
    `finished_at` (default: now)."""
    _, values = full_series(session, run.id, "wall_s")
    reported = [v for v in values if v is not None]
    if reported and reported[-1] > 0:
        return reported[-1]
    started = run.started_at or run.created_at
    return ((finished_at or utcnow()) - started).total_seconds()
