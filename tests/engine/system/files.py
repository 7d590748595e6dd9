"""FedScale-format files written by the tests."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

DEVICES = "devices.pkl"
TRACE = "trace.pkl"


def write(folder: Path, name: str, table: Any) -> str:
    (folder / name).write_bytes(pickle.dumps(table))
    return name


def devices(folder: Path, speeds: dict[int, tuple[float, float]]) -> str:
    """client → (computation ms per sample, communication kbit/s)."""
    table = {c: {"computation": ms, "communication": kbps} for c, (ms, kbps) in speeds.items()}
    return write(folder, DEVICES, table)


def trace(folder: Path, sessions: dict[int, list[tuple[float, float]]], period: float) -> str:
    """client → its online sessions (start, end), repeating every `period` seconds."""
    table = {
        c: {
            "duration": period,
            "active": [a for a, _ in spans],
            "inactive": [b for _, b in spans],
            "finish_time": period,
            "model": "test",
        }
        for c, spans in sessions.items()
    }
    return write(folder, TRACE, table)
