"""`eventually`: the value the condition gives when it holds, and a failure in words."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.eventually import eventually


def test_the_first_true_value_after_as_many_pauses_as_asks_before_it() -> None:
    answers: Iterator[object] = iter([0, None, [], "ready", "later"])
    pauses: list[float] = []
    assert eventually(lambda: next(answers), "ready", every=0.5, pause=pauses.append) == "ready"
    assert pauses == [0.5, 0.5, 0.5]


def test_past_the_timeout_it_says_what_it_awaited() -> None:
    asked: list[int] = []
    with pytest.raises(AssertionError, match=r"^not within 0 s: asked 1 time, never true$"):
        eventually(lambda: asked.append(1), lambda: f"asked {len(asked)} time, never true", 0)


def test_a_condition_that_raises_fails_at_once() -> None:
    def failed() -> bool:
        raise AssertionError("run 3 failed")

    with pytest.raises(AssertionError, match="run 3 failed"):
        eventually(failed, "run 3 finishing", timeout=3600)
