"""Noticing, and acting on, log records of other threads, with a deadline."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from types import TracebackType


class OnLog(logging.Handler):
    """Collects the messages of `logger` that hold `text` while in a `with` block; at the
    first one, calls `action` (in the thread that logs it, before that thread goes on)."""

    def __init__(self, logger: str, text: str, action: Callable[[], object] | None = None) -> None:
        super().__init__()
        self.logger = logging.getLogger(logger)
        self.text = text
        self.action = action
        self.messages: list[str] = []
        self.seen = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if self.text not in message:
            return
        self.messages.append(message)
        if not self.seen.is_set():
            if self.action is not None:
                self.action()
            self.seen.set()

    def wait(self, timeout: float = 60) -> None:
        assert self.seen.wait(timeout), f"nothing logged with {self.text!r} in {timeout} s"

    def __enter__(self) -> OnLog:
        self.logger.addHandler(self)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.logger.removeHandler(self)
