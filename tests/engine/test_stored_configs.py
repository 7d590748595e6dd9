"""Configs and runs stored by the engine before it was opened to plug-ins still work.

`stored/configs_v0.json` holds, as that version stored them (`model_dump(mode="json")`),
every preset with its variants and its comparison set, every algorithm and every
availability model with their defaults. `stored/runs_v1.json` holds 6-round runs of
every algorithm (Markov availability, per-client evaluation) on synthetic_clustered:
the same configs must give the same rounds and summary. They were recorded by that
version (`runs_v0.json`) and re-recorded, from the same configs, when
synthetic_clustered switched to the official CA-Fed generator's random calls; the
CA-Fed run also when CA-Fed took its authors' loss filter (reports fill, then smooth)
and their order of exclusions (by |λ̂|). Their `std_test_acc_second_half` was computed
again from their stored rounds when it took CA-Fed's definition (the points at rounds
completed ≥ rounds / 2: 3 to 6 of 6, not 4 to 6).

The built-in datasets' and models' own fields they hold flat (`data.dimension`) are
sub-objects now (`data.synthetic_clustered.dimension`): the configs validate to the same
values where `moved.py` puts them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from worker.engine import ListSink, run_config_for, simulate
from worker.engine.components import current
from worker.engine.moved import moved

STORED = Path(__file__).parent / "stored"
CONFIGS: dict[str, dict[str, Any]] = json.loads((STORED / "configs_v0.json").read_text())
RUNS: dict[str, dict[str, Any]] = json.loads((STORED / "runs_v1.json").read_text())


def contains(stored: Any, now: Any, path: str = "") -> list[str]:
    """Paths where `now` differs from `stored`; keys only `now` has (new parameters
    with defaults) are allowed."""
    if isinstance(stored, dict):
        if not isinstance(now, dict):
            return [path]
        return [d for k, v in stored.items() for d in contains(v, now.get(k), f"{path}.{k}")]
    if isinstance(stored, list):
        if not isinstance(now, list) or len(now) != len(stored):
            return [path]
        return [d for a, b in zip(stored, now, strict=True) for d in contains(a, b, path)]
    if isinstance(stored, float) and isinstance(now, (int, float)):
        return [] if math.isclose(stored, now, rel_tol=1e-5, abs_tol=1e-6) else [path]
    return [] if stored == now else [path]


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_stored_config_validates_unchanged(name: str) -> None:
    stored = CONFIGS[name]
    config = run_config_for(current()).model_validate(stored)
    assert contains(moved(stored), config.model_dump(mode="json")) == []


@pytest.mark.parametrize("algorithm", sorted(RUNS))
def test_stored_run_reproduces(algorithm: str) -> None:
    stored = RUNS[algorithm]
    sink = ListSink()
    summary = simulate(run_config_for(current()).model_validate(stored["config"]), sink)
    rounds = [record.deterministic() for record in sink.records]
    assert contains(stored["rounds"], rounds) == []
    assert contains(stored["summary"], summary.to_dict()) == []


def test_a_changed_value_is_caught() -> None:
    """The comparison itself can fail."""
    stored = RUNS["fedavg"]["rounds"]
    changed = json.loads(json.dumps(stored))
    row = next(r for r in changed if r["selected"])
    row["selected"] = row["selected"][:-1]
    assert contains(stored, changed) == [".selected"]


def test_the_moved_fields_go_where_they_live_now() -> None:
    old: dict[str, Any] = {
        "name": "x",
        "data": {"dimension": 5, "train_per_client": 7, "means": None, "sigma": 0.5},
        "model": {"name": "mlp", "hidden": 3, "init": None},
    }

    assert moved(old) == {
        "name": "x",
        "data": {
            "synthetic_clustered": {"dimension": 5, "train_per_client": 7},
            "mean_estimation": {"train_per_client": 7, "sigma": 0.5},
        },
        "model": {"name": "mlp", "mlp": {"hidden": 3}},
    }
    assert old["data"]["dimension"] == 5  # the given config is left as it was
    new = {"data": {"synthetic_clustered": {"dimension": 5}}}
    assert moved(new) is new


def test_an_old_path_validates_as_the_new_one() -> None:
    run_config = run_config_for(current())
    old = run_config.model_validate({"data": {"dimension": 20}, "model": {"hidden": 8}})
    new = run_config.model_validate(
        {"data": {"synthetic_clustered": {"dimension": 20}}, "model": {"mlp": {"hidden": 8}}}
    )

    assert old == new
    assert old.data.synthetic_clustered.dimension == 20  # type: ignore[attr-defined]
