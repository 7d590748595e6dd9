"""A pytest plug-in for the whole suite (`-p tests.slow_report` in pyproject.toml): after
a run, the tests that took over 10 s without the `slow` marker are named (a list to act
on, not a failure: times vary with the machine's load)."""

from __future__ import annotations

from typing import Any

import pytest

SLOW_S = 10.0
_unmarked: list[tuple[float, str]] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    report = outcome.get_result()
    if (
        report.when == "call"
        and report.duration > SLOW_S
        and item.get_closest_marker("slow") is None
    ):
        _unmarked.append((report.duration, item.nodeid))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _unmarked:
        terminalreporter.section(f"tests over {SLOW_S:.0f} s without the slow marker")
        for duration, nodeid in sorted(_unmarked, reverse=True):
            terminalreporter.write_line(f"{duration:7.1f} s  {nodeid}")
