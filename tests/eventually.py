"""The one way a test waits: `eventually` asks a condition again until it holds, and
fails in words when it does not in time. Never a fixed sleep."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def eventually(
    condition: Callable[[], T | None],
    what: str | Callable[[], str],
    timeout: float = 60,
    every: float = 0.05,
    pause: Callable[[float], object] = time.sleep,
) -> T:
    """The first true value of `condition()`, asked every `every` s; past `timeout` s an
    AssertionError that says what was awaited (`what`, or what it returns then: the
    state it stopped in). A condition that can no longer come true fails at once by
    raising itself (a run that failed). `pause`: how to wait between two asks (a
    browser page's own wait, which lets its handlers run)."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() >= deadline:
            awaited = what() if callable(what) else what
            raise AssertionError(f"not within {timeout:g} s: {awaited}")
        pause(every)
    return value
