"""Installed-looking plug-in distributions for tests: a `*.dist-info` folder with
`METADATA` and `entry_points.txt` beside the plug-in's modules, on a folder that goes on
`sys.path` (as `pip install` leaves them in site-packages)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

GOOD = """
import torch
from pydantic import Field

from fedwatch.plugins import (
    Algorithm, MetricSpec, Params, Plan, Step, algorithm, renormalised, weighted_step,
)


class DampedParams(Params):
    damping: float = Field(0.5, gt=0, le=1, description="Share of the mean delta applied.")


TRAINED = MetricSpec("damped_trained", "clients trained", panel="algorithm", unit="clients")


@algorithm("damped", params=DampedParams, label="damped FedAvg")
class Damped(Algorithm):
    metric_specs = (TRAINED,)

    def select(self, t, w, available, gen):
        return Plan(available.ids)

    def aggregate(self, t, w, plan, deltas, lr):
        ids = plan.selected.to(self.facts.device)
        a = self.params.damping * renormalised(self.facts.alpha, ids)
        return weighted_step(self.facts.n, ids, a, deltas, {TRAINED.name: float(len(ids))})
"""

# Each module fails in its own way; `half` registers an availability model first.
BROKEN = {
    "broken_import": "import fedwatch_no_such_module\n",
    "broken_params": """
from fedwatch.plugins import Params, algorithm
from fedwatch_demo import Damped

class NoDefault(Params):
    x: float

algorithm("no_default", params=NoDefault)(Damped)
""",
    "broken_clash": """
from fedwatch.plugins import algorithm
from fedwatch_demo import Damped

algorithm("fedavg")(Damped)
""",
    "broken_nothing": "class Unregistered:\n    pass\n",
    "broken_half": """
from fedwatch.plugins import Params, algorithm, availability
from fedwatch.plugins import Availability
from fedwatch_demo import Damped

@availability("half_avail")
class HalfAvail(Availability):
    def mask(self, t):
        raise NotImplementedError

class NoDefault(Params):
    y: int

algorithm("half", params=NoDefault)(Damped)
""",
}

ENTRY_POINTS = {
    "fedwatch.algorithms": {
        "damped": "fedwatch_demo:Damped",
        "broken_import": "fedwatch_broken_import:Thing",
        "no_default": "fedwatch_broken_params:Damped",
        "fedavg": "fedwatch_broken_clash:Damped",
        "nothing": "fedwatch_broken_nothing:Unregistered",
        "half": "fedwatch_broken_half:Damped",
    },
}
BROKEN_ENTRY_POINTS = [
    "fedwatch.algorithms:broken_import = fedwatch_broken_import:Thing",
    "fedwatch.algorithms:no_default = fedwatch_broken_params:Damped",
    "fedwatch.algorithms:fedavg = fedwatch_broken_clash:Damped",
    "fedwatch.algorithms:nothing = fedwatch_broken_nothing:Unregistered",
    "fedwatch.algorithms:half = fedwatch_broken_half:Damped",
]


def write_modules(root: Path) -> None:
    """The plug-in modules, importable from `root`."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "fedwatch_demo.py").write_text(textwrap.dedent(GOOD))
    for name, text in BROKEN.items():
        (root / f"fedwatch_{name}.py").write_text(textwrap.dedent(text))


def write_dist(root: Path) -> Path:
    """The modules and one distribution, `fedwatch-demo 0.1`, declaring every entry point."""
    write_modules(root)
    info = root / "fedwatch_demo-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fedwatch-demo\nVersion: 0.1\n")
    lines = []
    for group, points in ENTRY_POINTS.items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return root


def run_python(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python *args` with the distribution's folder on the path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(REPO)])}
    return subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, text=True, timeout=300, cwd=REPO
    )
