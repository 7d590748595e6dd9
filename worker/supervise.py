"""A run's supervisor: claims the run, starts its process (`worker.child`), passes on
cancels, deletes and shutdown, keeps the run's heartbeat, enforces the time limits, and
settles the status when the process ends before storing an outcome.

The same supervisor serves the embedded server (one thread per run at once) and Celery
workers (one task thread per run), so both behave alike.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy import select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from db.models import Run, utcnow
from db.retry import DatabaseUnavailable
from db.settings import Settings
from worker import child
from worker.claims import claim_execution, store_crash, store_outcome
from worker.engine import KeptPools

log = logging.getLogger(__name__)

# A cancel takes effect at the end of the round in progress, or by this time, whichever
# comes first: then the process is killed (the run keeps its last checkpoint).
CANCEL_GRACE_S = 1.2
# At shutdown or a time limit the run gets this long to finish its round and store a
# checkpoint of where it stopped, then it is killed.
STOP_GRACE_S = 5.0
# A write of the supervisor that failed past its retries (`FEDWATCH_DB_RETRY_S`: a full
# disk, a server away) is tried again this often for as long as it takes, so a run is
# settled once the database takes writes again, never left running without a process.
WRITE_AGAIN_S = 5.0

T = TypeVar("T")


def until_written(what: str, write: Callable[[], T], shutdown: threading.Event) -> T | None:
    """`write()` (a unit of work through `db.retry.in_transaction`), tried again every
    `WRITE_AGAIN_S` while the database takes no writes; None if `shutdown` comes first
    (the next start of the server settles the run)."""
    while True:
        try:
            return write()
        except DatabaseUnavailable as err:
            log.warning("%s; trying again in %g s", err, WRITE_AGAIN_S)
            if shutdown.wait(WRITE_AGAIN_S):
                return None


@dataclass
class Watch:
    claim: str | None
    cancel_requested: bool


class Supervision:
    """One execution of one run, from claim to settled status (see `supervise`)."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        settings: Settings,
        run_id: int,
        claim: str,
        shutdown: threading.Event,
        kept_pools: KeptPools | None,
    ) -> None:
        self.sessions = sessions
        self.kept_pools = kept_pools
        self.settings = settings
        self.run_id = run_id
        self.claim = claim
        self.shutdown = shutdown
        self.asked: dict[str, float] = {}  # "cancel", "stop", "time" -> when the run was told
        self.killed = False
        self.gone = False
        self.heartbeat_at = time.monotonic()

    def follow(self, threads: int, cores: frozenset[int] | None) -> bool:
        """Start the run's process (on `cores`, or wherever this process may run) and
        follow it to its end; True when the run is left queued and must be sent again."""
        spec = child.ChildSpec(
            self.run_id,
            self.claim,
            self.settings.model_dump(),
            threads,
            self.settings.max_run_memory_mb,
            self.kept_pools,
            cores,
        )
        process, logs = child.start(spec)
        assert process.pid is not None
        started = time.monotonic()
        while process.exitcode is None:
            process.join(self.settings.supervise_poll_s)
            if process.exitcode is None and self._must_kill(process.pid, started):
                process.kill()
                self.killed = True
                process.join()
        assert process.exitcode is not None
        logs.join()
        return self._settle(process.exitcode, logs.last_error)

    def _must_kill(self, pid: int, started: float) -> bool:
        now = time.monotonic()
        watch = self._watch(now)
        if watch is not None and (watch.claim != self.claim):
            self.gone = True  # deleted, or taken over by another execution
            return True
        if watch is not None and watch.cancel_requested:
            self._tell(pid, "cancel", child.CANCEL, now)
        if self.shutdown.is_set():
            self._tell(pid, "stop", child.STOP, now)
        if now - started > self.settings.soft_time_limit_s:
            self._tell(pid, "time", child.STOP, now)
        deadlines = [
            asked + (CANCEL_GRACE_S if why == "cancel" else STOP_GRACE_S)
            for why, asked in self.asked.items()
        ]
        return now > min([*deadlines, started + self.settings.time_limit_s])

    def _tell(self, pid: int, why: str, signum: signal.Signals, now: float) -> None:
        """Send `signum` once per reason; the run stops at its next round."""
        if why not in self.asked:
            self.asked[why] = now
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

    def _watch(self, now: float) -> Watch | None:
        """The run's claim and cancel flag (claim None: the run is gone); every quarter
        lease this also renews the heartbeat, so a long start-up or round is not taken
        for a dead worker. None when the database cannot be read just now."""
        renew = now - self.heartbeat_at >= self.settings.lease_s / 4
        try:
            with self.sessions.begin() as session:
                if renew:
                    session.execute(
                        update(Run)
                        .where(Run.id == self.run_id, Run.claim == self.claim)
                        .values(heartbeat_at=utcnow())
                    )
                    self.heartbeat_at = now
                row = session.execute(
                    select(Run.claim, Run.cancel_requested).where(Run.id == self.run_id)
                ).first()
        except DBAPIError as err:
            log.warning("run %s: cannot read its state (%s); retrying", self.run_id, err.orig)
            return None
        if row is None:
            return Watch(None, False)
        return Watch(row.claim, bool(row.cancel_requested))

    def _settle(self, exitcode: int, last_error: str | None) -> bool:
        if self.gone or (exitcode == 0 and not self.killed):
            return False  # the outcome is stored, or the run is not ours any more
        if exitcode == child.STOPPED or self.killed:
            return self._stopped()
        if exitcode == child.UNSTORED:
            error = (
                f"its outcome could not be stored: {last_error or 'the database took no writes'}"
            )
            self._store_outcome("failed", error)
            return False
        reason = describe_exit(exitcode)
        status = self._store(
            lambda: store_crash(self.sessions, self.run_id, self.claim, reason, self.settings)
        )
        log.warning("run %s: %s; the run is now %s", self.run_id, reason, status)
        return status == "queued"

    def _store(self, write: Callable[[], T]) -> T | None:
        return until_written(f"run {self.run_id}", write, self.shutdown)

    def _store_outcome(self, status: str, error: str | None) -> bool | None:
        """The outcome, once the database takes it: whether the run was still ours (None
        when the server stopped first)."""
        return self._store(
            lambda: store_outcome(
                self.sessions, self.run_id, status, None, error, self.claim, self.settings
            )
        )

    def _stopped(self) -> bool:
        """The run stopped (or was killed) before its end, because it was told to."""
        why = next((w for w in ("cancel", "time", "stop") if w in self.asked), "cancel")
        limit = self.settings.soft_time_limit_s
        status, error = {
            "cancel": ("cancelled", None),
            "time": (
                "failed",
                f"stopped at the time limit of {limit} s (FEDWATCH_SOFT_TIME_LIMIT_S); "
                "resume it to continue from where it stopped",
            ),
            "stop": ("queued", None),
        }[why]
        return bool(self._store_outcome(status, error)) and status == "queued"


def describe_exit(exitcode: int) -> str:
    if exitcode < 0:
        name = signal.Signals(-exitcode).name
        hint = " (the system may have run out of memory)" if name == "SIGKILL" else ""
        return f"its process was killed by {name}{hint}"
    return f"its process exited with status {exitcode}"


def supervise(
    run_id: int,
    *,
    sessions: sessionmaker[Session],
    settings: Settings,
    worker: str,
    threads: int,
    shutdown: threading.Event,
    kept_pools: KeptPools | None = None,
    cores: frozenset[int] | None = None,
) -> str | None:
    """Claim the run and execute it in its own process with `threads` torch threads, on
    `cores` (default: this process's), keeping the datasets it loads in `kept_pools` (the
    caller's, across its runs).

    Returns the run's queue when the run is left queued and must be sent again: stopped
    by `shutdown` (with a checkpoint of where it stopped), or after its process's first
    crash; None otherwise. A run that another live execution holds, or that is finished
    or cancelled, is left alone (a redelivered message does nothing).
    """
    if shutdown.is_set():
        return None
    child.warm_up()  # before the claim: the fork server's first start takes seconds
    claimed = until_written(
        f"run {run_id}", lambda: claim_execution(sessions, run_id, worker, settings), shutdown
    )
    if claimed is None:
        return None
    supervision = Supervision(sessions, settings, run_id, claimed.claim, shutdown, kept_pools)
    again = supervision.follow(threads, cores)
    return claimed.queue if again else None
