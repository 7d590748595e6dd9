"""`fedwatch plugins`: what was loaded, from where, and what failed."""

from __future__ import annotations

import json
from pathlib import Path

from fedwatch.cli.plugins_cmd import format_report
from fedwatch.plugins import Failed, Loaded, PluginReport
from tests.engine.plugin_dists import BROKEN_ENTRY_POINTS, run_python, write_dist


def test_report_lines() -> None:
    found = PluginReport(
        loaded=[Loaded("fedwatch.algorithms", "fedau", "/x/fedau/algorithm.py:12", "fedau 0.1")],
        failed=[Failed("fedwatch.models:big = big:Big", None, "ImportError: no torchvision")],
    )

    assert format_report(found) == (
        "loaded:\n"
        "  fedwatch.algorithms  fedau  /x/fedau/algorithm.py:12  (fedau 0.1)\n"
        "failed:\n"
        "  fedwatch.models:big = big:Big  (no distribution): ImportError: no torchvision"
    )
    assert format_report(PluginReport()) == "loaded:\n  none\nfailed:\n  none"


def test_lists_an_installed_distribution(tmp_path: Path) -> None:
    root = write_dist(tmp_path)

    text = run_python(root, "-m", "fedwatch.command", "plugins")
    as_json = run_python(root, "-m", "fedwatch.command", "plugins", "--json")

    assert text.returncode == 0 and as_json.returncode == 0, text.stderr
    # Installed beside the example plug-ins the test environment holds (examples/).
    lines = text.stdout.splitlines()
    failed = lines.index("failed:")
    loaded = f"  fedwatch.algorithms  damped  {root / 'fedwatch_demo.py'}:"
    assert lines[0] == "loaded:"
    demo = [line for line in lines[1:failed] if line.startswith(loaded)]
    assert len(demo) == 1 and demo[0].endswith("  (fedwatch-demo 0.1)")
    assert [line.split("  (")[0].strip() for line in lines[failed + 1 :]] == BROKEN_ENTRY_POINTS
    out = json.loads(as_json.stdout)
    assert {p["name"] for p in out["loaded"]} == {"damped", "fedau"}
    assert out["loaded"][0]["distribution"] == "fedwatch-demo 0.1"
    assert [f["entry_point"] for f in out["failed"]] == BROKEN_ENTRY_POINTS
    assert all(f["reason"] for f in out["failed"])
