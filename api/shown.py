"""A run as the API shows it: its shown status (`db.status.shown`) and its standing
(speed, queue position, ETA: `db.standing`). Every route and the live feed build a run's
answer here, so a created, edited or cancelled run shows what a read one does; and an
experiment, with how far its runs are."""

from __future__ import annotations

from dataclasses import asdict
from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.schemas.experiments import ExperimentProgress, ExperimentPublic
from api.schemas.runs import RunItem, RunPublic
from db.models import EXTERNAL, Experiment, Run, utcnow
from db.run_models import model_size
from db.settings import Settings
from db.standing import Board, experiment_speed, standings
from db.status import shown

Item = TypeVar("Item", bound=RunItem)


def board(session: Session, settings: Settings) -> Board:
    """The standings of the active runs on this server: the embedded one executes
    `embedded_concurrency` runs at once; with a broker, the workers are not known here."""
    slots = settings.embedded_concurrency if settings.broker_url is None else None
    return standings(session, slots)


def shown_run(item: type[Item], run: Run, stall_s: float, on: Board | None = None) -> Item:
    """`run` as `item`, with the status it shows (`stalled` once an external run is
    silent for `stall_s`) and, given the board `on`, its speed, queue position and ETA."""
    status = shown(run.status, run.source == EXTERNAL, run.heartbeat_at, utcnow(), stall_s)
    update = {"status": status, **(asdict(on.of(run.id, run.status, run.summary)) if on else {})}
    return item.model_validate(run).model_copy(update=update)


def one_run(run: Run, session: Session, settings: Settings) -> RunPublic:
    """`run` as every answer about one run shows it (read, edit, cancel, resume, finish):
    with its status, standing and final model's size, so no answer drops what another
    gave (the run page's *Model* button after an edit)."""
    item = shown_run(RunPublic, run, settings.stall_s, board(session, settings))
    return item.model_copy(update={"model_bytes": model_size(session, run.id)})


def one_experiment(session: Session, experiment: Experiment, on: Board) -> ExperimentPublic:
    """`experiment` with its runs' ids and how far they are, given the board `on`."""
    rows = session.execute(
        select(Run.id, Run.status, Run.rounds_done, Run.rounds_total)
        .where(Run.experiment_id == experiment.id)
        .order_by(Run.id)
    ).all()
    by_status: dict[str, int] = {}
    for row in rows:
        by_status[row.status] = by_status.get(row.status, 0) + 1
    progress = ExperimentProgress(
        by_status=by_status,
        rounds_done=sum(row.rounds_done for row in rows),
        rounds_total=sum(row.rounds_total for row in rows),
        rounds_per_s=experiment_speed(session, on, experiment.id),
        eta_s=on.eta(row.id for row in rows),
    )
    ids = [row.id for row in rows]
    return ExperimentPublic.model_validate(
        {**vars(experiment), "run_ids": ids, "progress": progress}
    )
