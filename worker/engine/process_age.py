"""How long this process has existed: the start-up a run pays before its first round
(interpreter, imports, data, model), reported next to `wall_s`."""

from __future__ import annotations

import os


def process_age_s() -> float | None:
    """Seconds since this process started (Linux: /proc), or None where unknown."""
    try:
        with open(f"/proc/{os.getpid()}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: starttime, ticks
    return max(0.0, uptime - started)
