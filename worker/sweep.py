"""Recovery of runs whose worker died: re-enqueue running runs silent longer than the lease.

Every `fedwatch worker` sweeps from its main process, in a daemon thread started when
the worker is ready, without waiting for Redis to redeliver the dead worker's message
(which only happens after the visibility timeout, a day by default).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from celery import Celery
from celery.signals import worker_ready, worker_shutdown
from sqlalchemy.orm import Session, sessionmaker

from db.retry import retrying
from db.runs import requeue_stale
from db.session import make_engine, make_sessionmaker
from db.settings import Settings
from worker.celery_app import EXECUTE_RUN

log = logging.getLogger(__name__)

Submit = Callable[[int, str], None]


def sweep(sessions: sessionmaker[Session], lease_s: float, submit: Submit) -> list[int]:
    """Move stale running runs back to `queued` and hand each to `submit` once.

    The messages go out before the status change commits: if sending fails the runs
    stay stale for the next sweep; a worker that receives one early waits on the row.
    """
    with sessions.begin() as session:
        moved = requeue_stale(session, lease_s)
        for run_id, queue in moved:
            submit(run_id, queue)
            log.info("run %s: heartbeat older than %g s, re-enqueued on %s", run_id, lease_s, queue)
    return [run_id for run_id, _ in moved]


class Sweeper:
    """Sweeps now and then every `sweep_interval_s` until stopped; a sweep is retried
    through transient database errors for `db_retry_s` (a retry after a failed commit
    sends its messages again: the duplicates find the run claimed and do nothing)."""

    def __init__(self, settings: Settings, submit: Submit) -> None:
        self.settings = settings
        self.submit = submit
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="fedwatch-sweep", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join()

    def _loop(self) -> None:
        engine = make_engine(self.settings.database_url)
        sessions = make_sessionmaker(engine)
        while True:
            try:
                retrying(
                    "sweep for stale runs",
                    lambda: sweep(sessions, self.settings.lease_s, self.submit),
                    self.settings.db_retry_s,
                )
            except Exception:
                log.exception("sweep for stale runs failed")
            if self.stopped.wait(self.settings.sweep_interval_s):
                break
        engine.dispose()


def install(app: Celery, settings: Settings) -> None:
    """Run a `Sweeper` in each worker's main process, from ready to shutdown."""

    def submit(run_id: int, queue: str) -> None:
        app.send_task(EXECUTE_RUN, kwargs={"run_id": run_id}, queue=queue)

    sweeper = Sweeper(settings, submit)

    def on_ready(**_: Any) -> None:
        sweeper.start()

    def on_shutdown(**_: Any) -> None:
        sweeper.stop()

    worker_ready.connect(on_ready, weak=False)
    worker_shutdown.connect(on_shutdown, weak=False)
