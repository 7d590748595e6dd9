"""How the API hands a queued run to whatever executes it."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from sqlalchemy.orm import Session, sessionmaker

from db.runs import requeue_running
from worker.celery_app import EXECUTE_RUN, make_celery
from worker.engine import RunConfig
from worker.execute import execute_run
from worker.settings import Settings

log = logging.getLogger(__name__)


def queue_for(config: RunConfig) -> str:
    """Runs that may use a GPU go to the `gpu` queue, CPU-only runs to `cpu`."""
    return "cpu" if config.device == "cpu" else "gpu"


class Dispatcher(Protocol):
    mode: str

    def start(self) -> None: ...

    def submit(self, run_id: int, queue: str) -> None: ...

    def ping(self) -> str: ...

    def close(self) -> None: ...


class CeleryDispatcher:
    """Scale-out: a message per run on the Redis queue named after its device."""

    mode = "broker"

    def __init__(self, settings: Settings) -> None:
        self.app = make_celery(settings)

    def start(self) -> None:
        pass

    def submit(self, run_id: int, queue: str) -> None:
        self.app.send_task(EXECUTE_RUN, kwargs={"run_id": run_id}, queue=queue)

    def ping(self) -> str:
        try:
            with self.app.connection_for_write() as connection:
                connection.ensure_connection(max_retries=1, timeout=2)
        except Exception as err:
            return f"error: {type(err).__name__}"
        return "ok"

    def close(self) -> None:
        self.app.close()


class EmbeddedExecutor:
    """One machine: runs execute in this process, `embedded_concurrency` at a time."""

    mode = "embedded"

    def __init__(self, sessions: sessionmaker[Session], settings: Settings) -> None:
        self.sessions = sessions
        self.settings = settings
        self.stop = threading.Event()
        self.pool = ThreadPoolExecutor(settings.embedded_concurrency, "fedwatch-run")

    def start(self) -> None:
        """Resume what a previous server left queued or running."""
        with self.sessions.begin() as session:
            pending = [run.id for run in requeue_running(session)]
        for run_id in pending:
            self.submit(run_id, "embedded")

    def submit(self, run_id: int, queue: str) -> None:
        self.pool.submit(self._execute, run_id)

    def _execute(self, run_id: int) -> None:
        try:
            execute_run(
                run_id,
                sessions=self.sessions,
                settings=self.settings,
                worker="embedded",
                stop=self.stop,
            )
        except Exception:
            log.exception("embedded run %s", run_id)

    def ping(self) -> str:
        return "embedded"

    def close(self) -> None:
        self.stop.set()
        self.pool.shutdown(wait=True, cancel_futures=True)


def make_dispatcher(sessions: sessionmaker[Session], settings: Settings) -> Dispatcher:
    if settings.broker_url:
        return CeleryDispatcher(settings)
    return EmbeddedExecutor(sessions, settings)
