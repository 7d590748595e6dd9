"""Where runs stand, computed in this one place: each run's measured speed, a queued
run's place in its queue, and each active run's ETA (seconds until it should finish).

Speed: rounds per second of the run's own training time, `wall_s` at its last recorded
round (the engine's wall time: restored with a checkpoint, start-up and queueing left out);
a finished run's from its summary. An experiment's speed: the mean of its runs'.

ETA: the active runs are scheduled as the executors take them. The embedded server has
one queue and runs `slots` at once; with a broker each device queue (`cpu`, `gpu`) is
one, with as many at once as run in it now. A queue takes its queued runs in the order
they entered it (`QUEUE_ORDER`: submitted, resumed or queued again) as slots free: a
slot frees when its run's rounds left ÷ its speed have passed. A queued run's speed is
its own if it ran before (a resumed run), else its experiment's; not measured yet, its
ETA is unknown, and so is that of every run that waits for its slot. An external run
(its rounds come from its own code) holds no slot.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from db.models import EXTERNAL, QUEUE_ORDER, MetricChunk, Run
from db.series import unpack_chunks
from db.status import ACTIVE


@dataclass(frozen=True)
class Standing:
    """One run's speed, place in its queue (1 = next to start) and ETA in seconds."""

    rounds_per_s: float | None = None
    queue_position: int | None = None
    eta_s: float | None = None


@dataclass(frozen=True)
class Active:
    """What the schedule reads of an active run."""

    id: int
    status: str
    source: str
    queue: str
    experiment_id: int | None
    rounds_done: int
    rounds_total: int


@dataclass
class Board:
    """The standings of the active runs, and the experiments' speeds."""

    active: dict[int, Standing]
    experiment_speed: dict[int, float]

    def of(self, run_id: int, status: str, summary: dict[str, Any] | None) -> Standing:
        """A run's standing; a finished one has only its speed, from its summary."""
        if status in ACTIVE:
            return self.active.get(run_id, Standing())
        return Standing(rounds_per_s=summary_speed(summary))

    def eta(self, run_ids: Iterable[int]) -> float | None:
        """Seconds until the last of these runs finishes; None if one of them is active
        with an unknown ETA, or none is active."""
        etas = [self.active[i].eta_s for i in run_ids if i in self.active]
        if not etas or any(e is None for e in etas):
            return None
        return max(e for e in etas if e is not None)


def summary_speed(summary: dict[str, Any] | None) -> float | None:
    """Rounds per second of a finished run, from its summary's `rounds_done` and `wall_s`."""
    if not summary:
        return None
    rounds, wall = summary.get("rounds_done"), summary.get("wall_s")
    if not isinstance(rounds, int | float) or not isinstance(wall, int | float):
        return None
    return _speed(rounds, wall)


def _speed(rounds: float, wall_s: float) -> float | None:
    if rounds <= 0 or not math.isfinite(wall_s) or wall_s <= 0:
        return None
    return rounds / wall_s


def last_speeds(session: Session, run_ids: Sequence[int]) -> dict[int, float]:
    """Rounds per second of each run at its last recorded round (those with a `wall_s`)."""
    if not run_ids:
        return {}
    c = MetricChunk
    latest = (
        select(c.run_id, func.max(c.chunk).label("chunk"))
        .where(c.name == "wall_s", c.run_id.in_(run_ids))
        .group_by(c.run_id)
        .subquery()
    )
    rows = session.execute(
        select(c.run_id, c.chunk, c.present, c.values)
        .join(latest, and_(c.run_id == latest.c.run_id, c.chunk == latest.c.chunk))
        .where(c.name == "wall_s")
    )
    out = {}
    for run_id, chunk, present, values in rows:
        rounds, walls = unpack_chunks([(chunk, present, values)])
        speed = _speed(int(rounds[-1]) + 1, float(walls[-1])) if len(rounds) else None
        if speed is not None:
            out[run_id] = speed
    return out


def finished_speeds(session: Session, experiment_ids: Iterable[int]) -> dict[int, list[float]]:
    """The speeds of the finished runs of these experiments, from their summaries."""
    ids = list(experiment_ids)
    if not ids:
        return {}
    rounds, wall = Run.summary["rounds_done"].as_float(), Run.summary["wall_s"].as_float()
    rows = session.execute(
        select(Run.experiment_id, rounds, wall).where(
            Run.experiment_id.in_(ids), Run.status.not_in(ACTIVE), rounds > 0, wall > 0
        )
    )
    out: dict[int, list[float]] = defaultdict(list)
    for experiment_id, done, seconds in rows:
        out[experiment_id].append(done / seconds)
    return out


def experiment_speed(session: Session, board: Board, experiment_id: int) -> float | None:
    """The mean speed of an experiment's runs (from `board` while one of them is active)."""
    if experiment_id in board.experiment_speed:
        return board.experiment_speed[experiment_id]
    speeds = finished_speeds(session, [experiment_id]).get(experiment_id)
    return sum(speeds) / len(speeds) if speeds else None


def standings(session: Session, slots: int | None) -> Board:
    """The board of every active run. `slots`: runs the embedded server executes at once;
    None with a broker (each device queue runs as many as run in it now)."""
    rows = session.execute(
        select(
            Run.id,
            Run.status,
            Run.source,
            Run.queue,
            Run.experiment_id,
            Run.rounds_done,
            Run.rounds_total,
        )
        .where(Run.status.in_(ACTIVE))
        .order_by(*QUEUE_ORDER)
    )
    active = [Active(*row) for row in rows]
    if not active:
        return Board({}, {})
    own = last_speeds(session, [r.id for r in active if r.rounds_done > 0])
    speeds: dict[int, list[float]] = defaultdict(list)
    for r in active:
        if r.experiment_id is not None and r.id in own:
            speeds[r.experiment_id].append(own[r.id])
    experiments = {r.experiment_id for r in active if r.experiment_id is not None}
    for experiment_id, finished in finished_speeds(session, experiments).items():
        speeds[experiment_id] += finished
    experiment_speed = {e: sum(v) / len(v) for e, v in speeds.items()}
    return Board(schedule(active, own, experiment_speed, slots), experiment_speed)


def schedule(
    active: Sequence[Active],
    own: dict[int, float],
    experiment_speed: dict[int, float],
    slots: int | None,
) -> dict[int, Standing]:
    """Each active run's standing (see the module's docstring)."""

    def speed(r: Active) -> float | None:
        if r.id in own:
            return own[r.id]
        return None if r.experiment_id is None else experiment_speed.get(r.experiment_id)

    def left(r: Active) -> float:
        """Seconds of work left; infinite when unknown."""
        s = speed(r)
        return math.inf if s is None else max(0, r.rounds_total - r.rounds_done) / s

    out: dict[int, Standing] = {}
    queues: dict[str, list[Active]] = defaultdict(list)
    for r in active:
        if r.source == EXTERNAL:
            out[r.id] = Standing(own.get(r.id), None, _finite(left(r)))
        else:
            queues["" if slots is not None else r.queue].append(r)
    for runs in queues.values():
        running = [r for r in runs if r.status == "running"]
        free = [left(r) for r in running]
        free += [0.0] * max(0, (slots or 1) - len(running))
        heapq.heapify(free)
        for r in running:
            out[r.id] = Standing(own.get(r.id), None, _finite(left(r)))
        queued = [r for r in runs if r.status == "queued"]
        for position, r in enumerate(queued, start=1):
            finish = heapq.heappop(free) + left(r)
            heapq.heappush(free, finish)
            out[r.id] = Standing(own.get(r.id), position, _finite(finish))
    return out


def _finite(seconds: float) -> float | None:
    return seconds if math.isfinite(seconds) else None
