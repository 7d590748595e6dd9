"""Celery tasks: thin wrappers around the run's supervisor; workers also sweep stale runs.

A worker runs its tasks in threads (`-P threads`): each task supervises a run that
executes in a process of its own (`worker.child`), so the worker's process stays small
and a run that crashes or runs out of memory takes only itself down.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

from celery import Task
from celery.signals import worker_ready, worker_shutdown, worker_shutting_down
from sqlalchemy.orm import Session, sessionmaker

from db.session import make_engine, make_sessionmaker
from db.settings import settings
from worker import child
from worker.celery_app import EXECUTE_RUN, celery_app
from worker.engine import KeptPools
from worker.kept_pools import open_kept_pools
from worker.supervise import supervise
from worker.sweep import install as install_sweeper

# Set when the worker begins a warm shutdown: runs stop at their next round with a
# checkpoint and are sent again, so another worker resumes them.
SHUTDOWN = threading.Event()


@cache
def sessions() -> sessionmaker[Session]:
    """One engine per worker process."""
    return make_sessionmaker(make_engine(settings.database_url))


# The datasets this worker keeps in memory across its runs: made by the first task, once
# (tasks run in threads), removed at shutdown.
_pools: list[KeptPools | None] = []
_pools_lock = threading.Lock()


def kept_pools() -> KeptPools | None:
    with _pools_lock:
        if not _pools:
            _pools.append(open_kept_pools(settings))
        return _pools[0]


@celery_app.task(name=EXECUTE_RUN, bind=True)
def execute_run_task(self: Task, *, run_id: int) -> None:
    concurrency = int(self.app.conf.worker_concurrency or 1)
    queue = supervise(
        run_id,
        sessions=sessions(),
        settings=settings,
        worker=self.request.hostname or "celery",
        threads=settings.threads_per_run(concurrency),
        shutdown=SHUTDOWN,
        kept_pools=kept_pools(),
    )
    if queue is not None:
        self.app.send_task(EXECUTE_RUN, kwargs={"run_id": run_id}, queue=queue)


def _on_ready(**_: Any) -> None:
    threading.Thread(target=child.warm_up, name="fedwatch-warm-up", daemon=True).start()


def _on_shutting_down(**_: Any) -> None:
    SHUTDOWN.set()


def _on_shutdown(**_: Any) -> None:
    """Once the runs have stopped: the kept datasets go."""
    with _pools_lock:
        pools = _pools[0] if _pools else None
    if pools is not None:
        pools.close()


worker_ready.connect(_on_ready, weak=False)
worker_shutting_down.connect(_on_shutting_down, weak=False)
worker_shutdown.connect(_on_shutdown, weak=False)
install_sweeper(celery_app, settings)
