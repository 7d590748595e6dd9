"""Celery tasks: thin wrappers around the shared task body; workers also sweep stale runs."""

from __future__ import annotations

from functools import cache

from celery import Task
from sqlalchemy.orm import Session, sessionmaker

from db.session import make_engine, make_sessionmaker
from worker.celery_app import EXECUTE_RUN, celery_app
from worker.execute import execute_run
from worker.settings import settings
from worker.sweep import install as install_sweeper


@cache
def sessions() -> sessionmaker[Session]:
    """One engine per worker process, created after the fork."""
    return make_sessionmaker(make_engine(settings.database_url))


@celery_app.task(name=EXECUTE_RUN, bind=True)
def execute_run_task(self: Task, *, run_id: int) -> None:
    worker = self.request.hostname or "celery"
    execute_run(run_id, sessions=sessions(), settings=settings, worker=worker)


install_sweeper(celery_app, settings)
