"""The synthetic FedScale-format pair shipped in `fedscale_sample/`: 100 devices
with lognormal speeds (inference median 10 ms per sample, bandwidth median 4 Mbit/s)
and sessions that alternate online (median 5 min) and offline (median 10 min) over a
day. `write()` writes them again (the tests check that the shipped files hold what
it writes)."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np

from worker.engine.system.fedscale import SAMPLE, SAMPLE_FILES

DEVICES = 100
DAY_S = 86_400


def synthetic(seed: int = 0) -> tuple[dict[int, Any], dict[int, Any]]:
    """(device capacity, behaviour trace) as FedScale's files hold them."""
    rng = np.random.default_rng(seed)
    compute = 10 * rng.lognormal(0, 0.7, DEVICES)
    link = 4000 * rng.lognormal(0, 0.8, DEVICES)
    devices = {
        c: {"computation": round(float(ms), 3), "communication": round(float(kbps), 1)}
        for c, (ms, kbps) in enumerate(zip(compute, link, strict=True), start=1)
    }
    trace = {c: _sessions(rng) for c in range(1, DEVICES + 1)}
    return devices, trace


def _sessions(rng: np.random.Generator) -> dict[str, Any]:
    active, inactive = [], []
    t = float(rng.uniform(0, 900))
    while t < DAY_S:
        end = min(t + 300 * rng.lognormal(0, 0.5), DAY_S)
        active.append(round(t, 1))
        inactive.append(round(end, 1))
        t = end + 600 * rng.lognormal(0, 0.5)
    return {
        "duration": DAY_S,
        "active": active,
        "inactive": inactive,
        "finish_time": DAY_S,
        "model": "synthetic",
    }


def write(folder: Path = SAMPLE) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, table in zip(SAMPLE_FILES.values(), synthetic(), strict=True):
        (folder / name).write_bytes(pickle.dumps(table, protocol=4))
