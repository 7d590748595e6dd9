"""Run state transitions shared by the API and the workers (compare-and-set updates)."""

from __future__ import annotations

import io
import math
import uuid
from datetime import datetime, timedelta
from typing import Any

import torch
from sqlalchemy import ColumnElement, and_, case, delete, func, or_, select, update
from sqlalchemy.orm import Session

from db.models import EXTERNAL, QUEUE_ORDER, SIMULATED, Checkpoint, Run, RunTag, utcnow
from db.status import ACTIVE, RESUMABLE, Status
from db.upsert import upsert


def claim_run(
    session: Session, run_id: int, worker: str, lease_s: float, claim: str | None = None
) -> Run | None:
    """Mark a queued run (or a running one whose worker went silent) as ours, with the
    token `claim` of this execution (a new one if None).

    Returns None when another worker holds it, it is finished or cancelled, or a cancel
    is pending (that run is marked cancelled), so a redelivered message does nothing. A
    running run that already carries `claim` is claimed again: a retried claim whose
    first commit went through unacknowledged.
    """
    now = utcnow()
    stale = now - timedelta(seconds=lease_s)
    claim = claim or uuid.uuid4().hex
    claimable = and_(
        Run.source == SIMULATED,
        or_(
            Run.status == "queued",
            and_(Run.status == "running", or_(Run.heartbeat_at < stale, Run.claim == claim)),
        ),
    )
    session.execute(
        update(Run)
        .where(Run.id == run_id, claimable, Run.cancel_requested)
        .values(status="cancelled", finished_at=now)
        .execution_options(synchronize_session=False)
    )
    result = session.execute(
        update(Run)
        .where(Run.id == run_id, claimable)
        .values(status="running", worker=worker, claim=claim, heartbeat_at=now)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        return None
    run = session.get(Run, run_id, populate_existing=True)
    if run is not None and run.started_at is None:
        run.started_at = now
    return run


# An execution that ends without storing an outcome counts as a crash. After the first
# the run is queued again (it resumes from its checkpoint); after the second it fails
# and waits for a person: a run that kills its executor would otherwise do so forever.
CRASHES_BEFORE_HOLD = 2


def _crash(reason: str) -> dict[str, Any]:
    """Values of an update that counts one more crash of a run."""
    crashes = Run.crashes + 1
    held = crashes >= CRASHES_BEFORE_HOLD
    now = utcnow()
    error = (
        f"its executor crashed {CRASHES_BEFORE_HOLD} times (last: {reason}); not resumed "
        "automatically: resume it once the cause is fixed"
    )
    return {
        "crashes": crashes,
        "status": case((held, "failed"), else_="queued"),
        "error": case((held, error), else_=None),
        "finished_at": case((held, now), else_=None),
        "queued_at": case((held, Run.queued_at), else_=now),
    }


def record_crash(session: Session, run_id: int, claim: str, reason: str) -> str | None:
    """The execution holding `claim` ended without an outcome: count the crash and queue
    the run again, or fail it (see `CRASHES_BEFORE_HOLD`). Returns the new status, None
    if another execution holds the run (or it is gone)."""
    status = session.scalar(
        update(Run)
        .where(Run.id == run_id, Run.claim == claim, Run.status == "running")
        .values(**_crash(reason))
        .returning(Run.status)
        .execution_options(synchronize_session=False)
    )
    return status


def finish_run(
    session: Session,
    run_id: int,
    status: str,
    summary: dict[str, Any] | None = None,
    error: str | None = None,
    claim: str | None = None,
    finished_at: datetime | None = None,
) -> bool:
    """Store the outcome, finished at `finished_at` (default: now); with `claim`, only
    while that execution still holds the run and it is running (or already has this
    outcome: a retry whose first commit went through unacknowledged). Returns whether
    the run was updated. The checkpoint goes once the run succeeded."""
    values: dict[str, Any] = {"status": status, "summary": summary, "error": error}
    if status == "queued":  # stopped: at the tail of its queue again
        values["queued_at"] = utcnow()
    else:
        values["finished_at"] = finished_at or utcnow()
    stmt = update(Run).where(Run.id == run_id)
    if claim is not None:
        stmt = stmt.where(Run.claim == claim, Run.status.in_(("running", status)))
    if session.execute(stmt.values(**values)).rowcount != 1:  # type: ignore[attr-defined]
        return False
    if status == "succeeded":  # a failed or cancelled run keeps it, to be resumed
        session.execute(delete(Checkpoint).where(Checkpoint.run_id == run_id))
    return True


def pack_checkpoint(state: dict[str, Any]) -> bytes:
    buffer = io.BytesIO()
    torch.save(state, buffer)
    return buffer.getvalue()


def save_checkpoint(session: Session, run_id: int, next_round: int, state: bytes) -> None:
    """Store a checkpoint packed by `pack_checkpoint`, replacing the run's previous one."""
    row = {"run_id": run_id, "round": next_round, "state": state, "saved_at": utcnow()}
    upsert(session, Checkpoint.__table__, row, ["run_id"])  # type: ignore[arg-type]


def load_checkpoint(session: Session, run_id: int) -> dict[str, Any] | None:
    blob = session.scalar(select(Checkpoint.state).where(Checkpoint.run_id == run_id))
    if blob is None:
        return None
    state: dict[str, Any] = torch.load(io.BytesIO(blob), weights_only=False)
    return state


def requeue_running(session: Session) -> list[Run]:
    """After an embedded server restart every running run is an orphan whose executor
    died with the server: count the crash (see `CRASHES_BEFORE_HOLD`); return the queued
    runs in the order they start (`QUEUE_ORDER`)."""
    session.execute(
        update(Run)
        .where(Run.status == "running", Run.source == SIMULATED)
        .values(**_crash("the server stopped while it ran"))
        .execution_options(synchronize_session=False)
    )
    return list(session.scalars(select(Run).where(Run.status == "queued").order_by(*QUEUE_ORDER)))


def requeue_stale(session: Session, lease_s: float) -> list[tuple[int, str]]:
    """Put running runs whose worker went silent for `lease_s` back to `queued`, counting
    the crash (a second one fails the run instead, see `CRASHES_BEFORE_HOLD`).

    Returns the (id, queue) of the runs queued again. The update is conditional, so of
    concurrent callers only one moves a given run and it is re-enqueued once.
    """
    stale = utcnow() - timedelta(seconds=lease_s)
    moved = session.execute(
        update(Run)
        .where(Run.status == "running", Run.source == SIMULATED, Run.heartbeat_at < stale)
        .values(**_crash(f"its worker went silent for more than {lease_s:g} s"))
        .returning(Run.id, Run.queue, Run.status)
        .execution_options(synchronize_session=False)
    )
    return sorted((run_id, queue) for run_id, queue, status in moved if status == "queued")


def new_run(
    config: dict[str, Any],
    *,
    queue: str,
    notes: str = "",
    name: str | None = None,
    experiment_id: int | None = None,
    cell: str | None = None,
) -> Run:
    """A queued run from a validated config (`RunConfig.model_dump(mode="json")`)."""
    now = utcnow()
    return Run(
        name=name or config["name"],
        notes=notes,
        config=config,
        algorithm=config["algorithm"]["name"],
        dataset=config["data"]["dataset"],
        availability=config["availability"]["kind"],
        seed=config["seed"],
        n_clients=config["data"]["n_clients"],
        queue=queue,
        status="queued",
        cancel_requested=False,
        rounds_total=config["rounds"],
        rounds_done=0,
        metric_names=[],
        experiment_id=experiment_id,
        cell=cell,
        created_at=now,
        queued_at=now,
    )


def list_runs(
    session: Session,
    *,
    status: str | None,
    algorithm: str | None,
    experiment_id: int | None,
    q: str | None,
    limit: int,
    offset: int,
    rank_by: str | None = None,
    higher_is_better: bool = True,
    tag: str | None = None,
    by_activity: bool = False,
    archived: bool | None = False,
    stall_s: float = math.inf,
) -> tuple[list[Run], int]:
    """Newest first, or best first by the summary value `rank_by` (highest first when
    `higher_is_better`, the direction the metric catalogue gives it; runs without it last,
    newest first among equals), or `by_activity` (without `rank_by`): running runs, then
    queued ones in the order they start (`QUEUE_ORDER`), then the rest newest first. `q`
    matches name, notes or a tag, case-insensitively; `tag` one tag exactly; `archived`:
    the runs archived or not (None: both); `status` the runs that show it
    (`db.status.shown`, with `stall_s`)."""
    where: list[ColumnElement[bool]] = []
    if archived is not None:
        where.append(Run.archived.is_(archived))
    if tag:
        where.append(Run.id.in_(select(RunTag.run_id).where(RunTag.tag == tag)))
    if status:
        where.append(_shows(status, stall_s))
    if algorithm:
        where.append(Run.algorithm == algorithm)
    if experiment_id is not None:
        where.append(Run.experiment_id == experiment_id)
    if q:
        pattern = f"%{q.lower()}%"
        tagged = select(RunTag.run_id).where(func.lower(RunTag.tag).like(pattern))
        where.append(
            or_(
                func.lower(Run.name).like(pattern),
                func.lower(Run.notes).like(pattern),
                Run.id.in_(tagged),
            )
        )
    count = session.scalar(select(func.count()).select_from(Run).where(*where)) or 0
    order = [Run.id.desc()]
    if by_activity and rank_by is None:
        active = Run.status.in_(ACTIVE)
        stage = case((Run.status == "running", 0), (Run.status == "queued", 1), else_=2)
        in_queue = case((Run.status == "queued", Run.queued_at))  # NULL for the others
        order = [stage.asc(), in_queue.asc(), case((active, Run.id), else_=-Run.id).asc()]
    if rank_by is not None:
        value = Run.summary[rank_by].as_float()
        best = value.desc() if higher_is_better else value.asc()
        order.insert(0, best.nulls_last())
    runs = session.scalars(select(Run).where(*where).order_by(*order).limit(limit).offset(offset))
    return list(runs), count


def _shows(status: str, stall_s: float) -> ColumnElement[bool]:
    """The runs whose shown status (`db.status.shown`) is `status`, in SQL."""
    if status not in (Status.RUNNING, Status.STALLED):
        return Run.status == status
    cutoff = utcnow() - timedelta(seconds=min(stall_s, 1e9))
    stalled = and_(
        Run.status == Status.RUNNING,
        Run.source == EXTERNAL,
        Run.heartbeat_at.is_not(None),
        Run.heartbeat_at < cutoff,
    )
    return stalled if status == Status.STALLED else and_(Run.status == Status.RUNNING, ~stalled)


def edit_run(
    run: Run,
    name: str | None,
    notes: str | None,
    tags: list[str] | None,
    archived: bool | None = None,
) -> None:
    """Rename a run (its config's name too, so a copy of it keeps the new one), replace
    its notes or its tags, archive it or bring it back; None leaves a field as it is."""
    if archived is not None:
        run.archived = archived
    if name is not None:
        run.name = name
        run.config = {**run.config, "name": name}
    if notes is not None:
        run.notes = notes
    if tags is not None:  # rows kept as they are: a row deleted and added again would clash
        kept = [row for row in run.tag_rows if row.tag in tags]
        known = {row.tag for row in kept}
        run.tag_rows = kept + [RunTag(tag=tag) for tag in dict.fromkeys(tags) if tag not in known]


def cancel_run(session: Session, run: Run, lease_s: float) -> bool:
    """Cancel a queued run now, and a running one whose executor went silent for `lease_s`
    (nothing runs it to stop) or that is external (its rounds are refused from now on);
    ask any other running one to stop. False if already final."""
    stale = utcnow() - timedelta(seconds=lease_s)
    unattended = or_(Run.heartbeat_at < stale, Run.source == EXTERNAL)
    idle = or_(Run.status == "queued", and_(Run.status == "running", unattended))
    done = session.execute(
        update(Run)
        .where(Run.id == run.id, idle)
        .values(status="cancelled", finished_at=utcnow(), cancel_requested=True)
        .execution_options(synchronize_session=False)
    )
    if done.rowcount == 1:  # type: ignore[attr-defined]
        return True
    session.refresh(run)
    if run.status == "running":
        run.cancel_requested = True
        return True
    return False


def resume_run(session: Session, run: Run) -> bool:
    """Queue a failed or cancelled run again: the next execution continues from its last
    checkpoint (the rounds after it are replayed and their stored rows kept), and its
    crash count starts again. False if the run is neither, or external."""
    done = session.execute(
        update(Run)
        .where(Run.id == run.id, Run.status.in_(RESUMABLE), Run.source == SIMULATED)
        .values(
            status="queued",
            cancel_requested=False,
            error=None,
            summary=None,
            finished_at=None,
            crashes=0,
            queued_at=utcnow(),
        )
        .execution_options(synchronize_session=False)
    )
    return done.rowcount == 1  # type: ignore[attr-defined]
