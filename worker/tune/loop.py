"""The thread that advances every unfinished tune now and then (`worker.tune.service`)
and hands the runs a step created to the dispatcher. The API's process runs one; it
resumes the tunes it finds at start, so a tune survives a restart of the server."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from db.models import Tune
from db.settings import Settings
from worker.tune.service import advance

log = logging.getLogger(__name__)

Submit = Callable[[int, str], None]


class TuneLoop:
    def __init__(self, sessions: sessionmaker[Session], settings: Settings, submit: Submit) -> None:
        self.sessions, self.settings, self.submit = sessions, settings, submit
        self.stopped = threading.Event()
        self.woken = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="fedwatch-tunes", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def wake(self) -> None:
        """Take a step now (a tune was created)."""
        self.woken.set()

    def stop(self) -> None:
        self.stopped.set()
        self.woken.set()
        if self.thread.is_alive():
            self.thread.join()

    def step(self) -> None:
        """Advance every unfinished tune once."""
        with self.sessions() as session:
            ids = list(session.scalars(select(Tune.id).where(Tune.status != "done")))
        for tune_id in ids:
            try:
                done = advance(self.sessions, self.settings, tune_id)
            except Exception:
                log.exception("tune %s: a step failed; trying again", tune_id)
                continue
            for run_id, queue in done.submit:
                self.submit(run_id, queue)

    def _loop(self) -> None:
        while not self.stopped.is_set():
            self.step()
            self.woken.wait(self.settings.tune_poll_s)
            self.woken.clear()
