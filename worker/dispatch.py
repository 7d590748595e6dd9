"""How the API hands a queued run to whatever executes it."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from sqlalchemy.orm import Session, sessionmaker

from db.runs import requeue_running
from db.settings import Settings
from worker import child
from worker.celery_app import EXECUTE_RUN, make_celery
from worker.engine import KeptPools, RunConfig
from worker.kept_pools import open_kept_pools
from worker.supervise import supervise

log = logging.getLogger(__name__)


def queue_for(config: RunConfig) -> str:
    """Runs that may use a GPU go to the `gpu` queue, CPU-only runs to `cpu`."""
    return "cpu" if config.device == "cpu" else "gpu"


class Dispatcher(Protocol):
    mode: str

    def start(self) -> None: ...

    def submit(self, run_id: int, queue: str) -> None: ...

    def ping(self) -> str: ...

    def begin_shutdown(self) -> None: ...

    def close(self) -> None: ...


class CeleryDispatcher:
    """Scale-out: a message per run on the Redis queue named after its device."""

    mode = "broker"

    def __init__(self, settings: Settings) -> None:
        self.app = make_celery(settings)

    def start(self) -> None:
        """Start this process's fork server in the background: the runs are the workers',
        but the checks of a system model's files start from it (`system_check.py`)."""
        threading.Thread(target=child.warm_up, name="fedwatch-warm-up", daemon=True).start()

    def begin_shutdown(self) -> None:
        pass  # the runs belong to the workers

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
    """One machine: runs execute in processes of their own (`worker.supervise`),
    `embedded_concurrency` at a time, on `cores` (None: wherever the server may run),
    each with its share of those cores' threads, and the datasets they load kept in
    memory across runs until the server stops."""

    mode = "embedded"

    def __init__(
        self, sessions: sessionmaker[Session], settings: Settings, cores: frozenset[int] | None
    ) -> None:
        self.sessions = sessions
        self.settings = settings
        self.cores = cores
        count = len(cores) if cores else None
        self.threads = settings.threads_per_run(settings.embedded_concurrency, count)
        self.shutdown = threading.Event()
        self.pool = ThreadPoolExecutor(settings.embedded_concurrency, "fedwatch-run")
        self.kept_pools: KeptPools | None = None

    def start(self) -> None:
        """Resume what a previous server left queued or running (a run it left running
        counts a crash), and start the runs' fork server in the background."""
        threading.Thread(target=child.warm_up, name="fedwatch-warm-up", daemon=True).start()
        self.kept_pools = open_kept_pools(self.settings)
        with self.sessions.begin() as session:
            pending = [run.id for run in requeue_running(session)]
        for run_id in pending:
            self.submit(run_id, "embedded")

    def submit(self, run_id: int, queue: str) -> None:
        if not self.shutdown.is_set():
            self.pool.submit(self._execute, run_id)

    def _execute(self, run_id: int) -> None:
        try:
            queue = supervise(
                run_id,
                sessions=self.sessions,
                settings=self.settings,
                worker="embedded",
                threads=self.threads,
                shutdown=self.shutdown,
                kept_pools=self.kept_pools,
                cores=self.cores,
            )
        except Exception:
            log.exception("embedded run %s", run_id)
            return
        if queue is not None:  # after a first crash; at shutdown the next start resumes it
            self.submit(run_id, "embedded")

    def ping(self) -> str:
        return "embedded"

    def begin_shutdown(self) -> None:
        """Take no more runs; running ones stop at their next round with a checkpoint."""
        self.shutdown.set()

    def close(self) -> None:
        self.begin_shutdown()
        self.pool.shutdown(wait=True, cancel_futures=True)
        if self.kept_pools is not None:
            self.kept_pools.close()


def make_dispatcher(
    sessions: sessionmaker[Session], settings: Settings, run_cores: frozenset[int] | None = None
) -> Dispatcher:
    """A broker's dispatcher where one is set, else the embedded executor, its runs on
    `run_cores` (None: wherever the server may run)."""
    if settings.broker_url:
        return CeleryDispatcher(settings)
    return EmbeddedExecutor(sessions, settings, run_cores)
