"""Dotted `key=value` assignments: the rules of `tests/cases/dotted_paths.json`, which the
browser's `frontend/js/paths.js` is checked against too (`frontend/test/paths.test.js`)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from worker.engine.errors import ConfigError
from worker.engine.overrides import apply_assignments

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "cases" / "dotted_paths.json").read_text(encoding="utf-8")
)["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_assignments_follow_the_shared_table(case: dict[str, Any]) -> None:
    config = copy.deepcopy(case["config"])
    if "error" in case:
        with pytest.raises(ConfigError) as err:
            apply_assignments(config, case["assignments"])
        assert str(err.value) == case["error"]
        return
    assert apply_assignments(config, case["assignments"]) == case["result"]
    assert config == case.get("input_after", case["config"])
