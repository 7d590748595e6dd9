"""Plug-ins from entry points: a good one joins the run config; each kind of broken one
is skipped with one warning line and leaves nothing taken in."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from tests.engine.plugin_dists import (
    BROKEN_ENTRY_POINTS,
    ENTRY_POINTS,
    run_python,
    write_dist,
    write_modules,
)
from worker.engine import algorithms, metrics, run_config_for
from worker.engine.components import Components, builtin
from worker.engine.plugins import load_plugins
from worker.engine.registry import selected

REASONS = {
    "broken_import": "ModuleNotFoundError: No module named 'fedwatch_no_such_module'",
    "no_default": "algorithm 'no_default': params field 'x' has no default",
    "fedavg": "algorithm 'fedavg': the name is already registered by ",
    "nothing": "loading it registered no algorithm named 'nothing'",
    "half": "algorithm 'half': params field 'y' has no default",
}


@pytest.fixture
def plugin_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    write_modules(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("fedwatch_")]:
        del sys.modules[name]


def entry_points() -> list[metadata.EntryPoint]:
    return [
        metadata.EntryPoint(name, value, group)
        for group, points in ENTRY_POINTS.items()
        for name, value in points.items()
    ]


def line_of(path: Path, text: str) -> str:
    """`path:line` of the line of `path` that starts with `text`."""
    lines = path.read_text().splitlines()
    return f"{path}:{next(i for i, x in enumerate(lines, 1) if x.startswith(text))}"


def loaded() -> Components:
    """The built-in components with the plug-ins of `entry_points()`."""
    out = builtin()
    load_plugins(out, entry_points())
    return out


def test_good_plugin_loads_and_broken_ones_are_left_out(
    plugin_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="fedwatch.plugins"):
        parts = loaded()
    found = parts.plugins

    assert [(p.group, p.name) for p in found.loaded] == [("fedwatch.algorithms", "damped")]
    assert found.loaded[0].source == line_of(
        plugin_path / "fedwatch_demo.py", '@algorithm("damped"'
    )
    assert [f.entry_point for f in found.failed] == BROKEN_ENTRY_POINTS
    for failure, (name, reason) in zip(found.failed, REASONS.items(), strict=True):
        assert reason in failure.reason, name
    # one line per broken plug-in, naming its entry point, its distribution and why
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == len(BROKEN_ENTRY_POINTS)
    for line, ep, failure in zip(lines, BROKEN_ENTRY_POINTS, found.failed, strict=True):
        assert "\n" not in line
        assert line == f"plug-in {ep} from no distribution skipped: {failure.reason}"
    # nothing of a broken plug-in is taken in, the half-declared one included
    assert set(parts.algorithms.names()) & {"no_default", "nothing", "half"} == set()
    assert "half_avail" not in parts.availability
    fedavg = Path(algorithms.__file__).parent / "fedavg.py"
    assert parts.algorithms.get("fedavg").source == line_of(fedavg, '@algorithm("fedavg"')
    assert "damped_trained" in metrics.by_name(parts.round_metrics)
    assert "damped_trained" not in metrics.by_name(builtin().round_metrics)


@pytest.mark.usefixtures("plugin_path")
def test_a_loaded_plugin_is_in_the_schema_and_validates_its_params() -> None:
    run_config = run_config_for(loaded())

    section = run_config.model_json_schema()["$defs"]["AlgorithmConfig"]["properties"]
    config = run_config.model_validate({"algorithm": {"name": "damped", "damped": {"damping": 1}}})

    assert "damped" in section["name"]["enum"] and "damped" in section
    assert selected(config.algorithm, config.components.algorithms)[1].damping == 1
    with pytest.raises(ValueError, match=r"algorithm\.damped\.damping"):
        run_config.model_validate({"algorithm": {"damped": {"damping": 0}}})


SCRIPT = """
import json
from worker.engine import ConfigError, ListSink, build_config, run_config_for, simulate
from worker.engine.components import current
from fedwatch.plugins import report

found = report()
algorithm = run_config_for(current()).model_json_schema()["$defs"]["AlgorithmConfig"]["properties"]
config = build_config(
    {"rounds": 2, "data": {"n_clients": 4}, "algorithm": {"participation": 2}},
    ["algorithm.name=damped", "algorithm.damped.damping=0.8"],
)
sink = ListSink()
simulate(config, sink)
try:
    build_config({}, ["algorithm.name=damped", "algorithm.damped.damping=2"])
except ConfigError as err:
    error = str(err)
print(json.dumps({
    "loaded": [[p.name, p.distribution] for p in found.loaded],
    "failed": [f.entry_point for f in found.failed],
    "enum": algorithm["name"]["enum"],
    "damping": algorithm["damped"],
    "trained": [r.metrics["damped_trained"] for r in sink.records],
    "error": error,
}))
"""


def test_an_installed_distribution_is_loaded_with_the_components(tmp_path: Path) -> None:
    root = write_dist(tmp_path)

    done = run_python(root, "-c", SCRIPT)

    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    demo = [p for p in out["loaded"] if p[1] == "fedwatch-demo 0.1"]  # beside the examples
    assert demo == [["damped", "fedwatch-demo 0.1"]]
    assert out["failed"] == BROKEN_ENTRY_POINTS
    assert "damped" in out["enum"] and out["damping"] == {"$ref": "#/$defs/DampedParams"}
    assert out["trained"] == [4.0, 4.0]  # always available: every client trains
    assert out["error"].startswith("algorithm.damped.damping: ")
    warnings = [line for line in done.stderr.splitlines() if line.startswith("plug-in ")]
    assert warnings == [
        f"plug-in {ep} from fedwatch-demo 0.1 skipped: {reason}"
        for ep, reason in zip(BROKEN_ENTRY_POINTS, _reasons(done.stderr), strict=True)
    ]


def _reasons(stderr: str) -> list[str]:
    return [line.split(" skipped: ", 1)[1] for line in stderr.splitlines() if " skipped: " in line]


IMPORTED_FIRST = """
import fedwatch_demo  # the plug-in's module before the engine: its import builds nothing
from worker.engine import components
assert components._current == []
from worker.engine.components import current
from worker.engine.config import run_config_for
from fedwatch.plugins import report

schema = run_config_for(current()).model_json_schema()
enum = schema["$defs"]["AlgorithmConfig"]["properties"]["name"]["enum"]
loaded = [[p.name, p.distribution] for p in report().loaded]
print([p for p in loaded if p[1] == "fedwatch-demo 0.1"], "damped" in enum)
"""


def test_a_plugin_module_imported_before_the_engine_still_loads(tmp_path: Path) -> None:
    root = write_dist(tmp_path)

    done = run_python(root, "-c", IMPORTED_FIRST)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[['damped', 'fedwatch-demo 0.1']] True"


def test_the_public_module_imports_no_service_layer(tmp_path: Path) -> None:
    script = (
        "import sys, fedwatch.plugins; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'api', 'db', 'celery', 'fastapi', 'sqlalchemy'}))"
    )

    done = run_python(tmp_path, "-c", script)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
