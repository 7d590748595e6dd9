"""Many runs at once (the runs table's selection) and an experiment with its runs: each
one transaction, run ids that do not exist reported, not failed on."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from db.models import Experiment, Run, RunTag


def existing(session: Session, ids: Sequence[int]) -> list[int]:
    """The ids of `ids` that name runs, in the order given."""
    found = set(session.scalars(select(Run.id).where(Run.id.in_(ids))))
    return [i for i in dict.fromkeys(ids) if i in found]


def delete_runs(session: Session, ids: Sequence[int]) -> None:
    """Delete the runs with all their records (running ones stop within a poll)."""
    session.execute(delete(Run).where(Run.id.in_(ids)).execution_options(synchronize_session=False))


def archive_runs(session: Session, ids: Sequence[int], archived: bool) -> None:
    session.execute(
        update(Run)
        .where(Run.id.in_(ids))
        .values(archived=archived)
        .execution_options(synchronize_session=False)
    )


def tag_runs(session: Session, ids: Sequence[int], tag: str, add: bool) -> None:
    """Give the runs `tag` (those that have it keep it), or take it off them."""
    if not add:
        session.execute(delete(RunTag).where(RunTag.run_id.in_(ids), RunTag.tag == tag))
        return
    tagged = set(session.scalars(select(RunTag.run_id).where(RunTag.run_id.in_(ids),
                                                             RunTag.tag == tag)))  # fmt: skip
    session.add_all(RunTag(run_id=i, tag=tag) for i in ids if i not in tagged)


def delete_experiment(session: Session, experiment: Experiment) -> int:
    """Delete the experiment and its runs; how many runs went with it."""
    ids = list(session.scalars(select(Run.id).where(Run.experiment_id == experiment.id)))
    delete_runs(session, ids)
    session.delete(experiment)
    return len(ids)
