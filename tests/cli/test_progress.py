"""Progress bars redraw at tqdm's pace on a terminal and rarely in a log."""

from __future__ import annotations

import io
import itertools
import time

import pytest

from fedwatch.cli.progress import (
    LOGGED_INTERVAL_S,
    TERMINAL_INTERVAL_S,
    progress_bar,
    redraw_interval,
)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_redraws_often_and_a_log_rarely() -> None:
    assert redraw_interval(Terminal()) == TERMINAL_INTERVAL_S
    assert redraw_interval(io.StringIO()) == LOGGED_INTERVAL_S


def test_a_logged_bar_is_not_forced_to_redraw_sooner_by_tqdms_monitor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bar = progress_bar(10, "compare x")

    assert bar.mininterval == LOGGED_INTERVAL_S
    assert bar.maxinterval >= LOGGED_INTERVAL_S
    bar.close()


def test_a_bar_written_to_a_log_leaves_a_few_lines_not_one_per_round(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bar = progress_bar(5000, "compare x")
    clock = itertools.count(time.time(), 0.01)  # a round every 10 ms: 50 s in all
    bar._time = lambda: next(clock)  # type: ignore[attr-defined]
    for _ in range(5000):
        bar.update(1)
    bar.close()

    err = capsys.readouterr().err
    redraws = err.count("\r") + err.count("\n")
    assert "5000/5000" in err
    assert redraws <= 5, err  # the first, one at 30 s, the last, the close
