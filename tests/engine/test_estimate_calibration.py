"""The estimate bounds what a run really takes, and not by far: each config runs in a
fresh process that reports the growth of its peak resident memory (bench/estimate.py
measures the same through the service's recorder, for the presets too)."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from worker.engine import build_config
from worker.engine.resources import estimate

REPO = Path(__file__).resolve().parents[2]
CHILD = """
import json, sys
from pathlib import Path
from worker.engine import ListSink, RunConfig, run_config_for, simulate
from worker.engine.allocator import keep_freed_memory
from worker.engine.components import current

def peak_kib(field):
    lines = Path("/proc/self/status").read_text().splitlines()
    return int(next(x for x in lines if x.startswith(field + ":")).split()[1])

keep_freed_memory()
config = run_config_for(current()).model_validate_json(sys.argv[1])
base = peak_kib("VmRSS")
Path("/proc/self/clear_refs").write_text("5")
simulate(config, ListSink())
print(json.dumps((peak_kib("VmHWM") - base) * 1024))
"""

CASES = {
    "data": {"data": {"n_clients": 200, "dimension": 500}, "algorithm": {"name": "fedavg"}},
    "client memory": {
        "data": {"n_clients": 2000},
        "model": {"name": "mlp", "hidden": 500},
        "algorithm": {"name": "fedlaavg", "participation": 20},
    },
    "every client trains": {
        "data": {"n_clients": 300, "dimension": 50},
        "model": {"name": "mlp", "hidden": 300},
        "algorithm": {"name": "unbiased"},
    },
}


def measured_growth(config_json: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, config_json],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    growth: int = json.loads(out.stdout.strip().splitlines()[-1])
    return growth


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_estimate_bounds_the_measured_peak_within_four_times(case: str) -> None:
    base: dict[str, Any] = {**CASES[case], "rounds": 10, "device": "cpu"}
    config = build_config(base, [])
    bound = estimate(config, held_rounds=config.rounds).host_bytes

    growth = measured_growth(config.model_dump_json())

    print(f"{case}: estimate {bound / 2**20:.0f} MiB, measured {growth / 2**20:.0f} MiB")
    assert growth <= bound <= 4 * growth
