"""Progress bars on stderr, and a sink that shows a run's progress and keeps its records.

On a terminal a bar redraws at most every 0.1 s and at least every 10 s (tqdm's
defaults). Written to a file or a
pipe (a CI log, `2> log`), every redraw is a new line there, so a bar redraws at most
every `LOGGED_INTERVAL_S` and when it closes.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from tqdm import tqdm

from worker.engine import ListSink, RoundRecord

TERMINAL_INTERVAL_S = 0.1
LOGGED_INTERVAL_S = 30.0


def redraw_interval(stream: TextIO) -> float:
    """Seconds between a bar's redraws on `stream`."""
    isatty = getattr(stream, "isatty", None)
    return TERMINAL_INTERVAL_S if isatty is not None and isatty() else LOGGED_INTERVAL_S


def progress_bar(total: int, desc: str, position: int = 0) -> tqdm:
    """A bar of rounds on stderr, redrawn as `redraw_interval` allows (tqdm's monitor
    thread, which forces a redraw after `maxinterval`, waits as long)."""
    interval = redraw_interval(sys.stderr)
    return tqdm(
        total=total,
        desc=desc,
        unit="round",
        position=position,
        leave=True,
        file=sys.stderr,
        mininterval=interval,
        maxinterval=max(interval, 10.0),
    )


class ProgressSink(ListSink):
    def __init__(self, total: int, label: str, position: int = 0) -> None:
        super().__init__()
        self.bar = progress_bar(total, label, position)

    def on_round(self, record: RoundRecord) -> None:
        super().on_round(record)
        m = record.metrics
        shown: dict[str, Any] = {}
        if "test_acc" in m:
            shown["acc"] = f"{m['test_acc']:.3f}"
        if "param" in m:
            shown["param"] = f"{m['param']:+.4f}"
        if shown:
            self.bar.set_postfix(shown, refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()
