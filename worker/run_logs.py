"""A run process's log records, sent over a pipe to the process that supervises it,
which logs them as its own: run logs land in the server's or the worker's log, under
its configuration, and a killed run's pipe simply ends."""

from __future__ import annotations

import logging
import threading
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext


class PipeHandler(logging.Handler):
    """In the run's process: every record goes down the pipe, its message formatted
    (with its traceback, if any) and nothing more: the supervisor's log adds its own
    level and logger name."""

    def __init__(self, pipe: Connection) -> None:
        super().__init__()
        self.pipe = pipe
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)  # the message, with its traceback if any
            plain = record.getMessage()  # without the format's prefix: what an error says
            record = logging.makeLogRecord(
                {
                    **record.__dict__,
                    "msg": text,
                    "args": None,
                    "exc_info": None,
                    "exc_text": None,
                    "plain": plain,
                }
            )
            self.pipe.send(record)
        except Exception:
            self.handleError(record)


class LogRelay:
    """In the supervisor: logs what the run's process sends until its end of the pipe
    closes (the process ended, however it ended)."""

    def __init__(self, ctx: BaseContext) -> None:
        self.reader, self.writer = ctx.Pipe(duplex=False)
        self.thread = threading.Thread(target=self._relay, name="fedwatch-run-logs", daemon=True)
        self.last_error: str | None = None  # the first line of the last error logged

    def start(self) -> None:
        """Call once the run's process holds the writing end."""
        self.writer.close()
        self.thread.start()

    def join(self, timeout: float = 5.0) -> None:
        self.thread.join(timeout)
        self.reader.close()

    def _relay(self) -> None:
        while True:
            try:
                record: logging.LogRecord = self.reader.recv()
            except (EOFError, OSError):
                return
            if record.levelno >= logging.ERROR:
                self.last_error = getattr(record, "plain", "").split("\n", 1)[0] or None
            logger = logging.getLogger(record.name)
            if logger.isEnabledFor(record.levelno):
                logger.handle(record)
