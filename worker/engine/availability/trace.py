"""Replayed availability: intervals `client,start_round,end_round[,period]` from a CSV.

Client k of the run follows trace client k mod M (M = largest trace id + 1). A row
makes its client available in rounds start ≤ t < end; with a period P the interval
repeats: available when start ≤ t mod P < end (then end ≤ P). A first line that is not
numeric is a header; blank lines and lines starting with # are skipped.
"""

from __future__ import annotations

import csv
import io
import math

import torch
from torch import Tensor

from worker.engine.availability.base import Availability
from worker.engine.errors import ConfigError

FIELD = "availability.trace.csv"


class TraceError(ConfigError):
    pass


def parse_trace(text: str) -> Tensor:
    """Rows (R, 4) of client, start, end, period (0 = not periodic)."""
    rows: list[list[int]] = []
    header_allowed = True
    for number, line in enumerate(csv.reader(io.StringIO(text)), start=1):
        cells = [c.strip() for c in line]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if header_allowed and not _numeric(cells[0]):
            header_allowed = False
            continue
        header_allowed = False
        rows.append(_parse_row(cells, number))
    if not rows:
        raise TraceError(f"{FIELD}: no intervals (expected client,start_round,end_round[,period])")
    return torch.tensor(rows, dtype=torch.long)


def _numeric(cell: str) -> bool:
    return cell.lstrip("+-").isdigit()


def _parse_row(cells: list[str], number: int) -> list[int]:
    where = f"{FIELD}: line {number}"
    if len(cells) not in (3, 4):
        raise TraceError(
            f"{where}: expected client,start_round,end_round[,period], got {len(cells)} fields"
        )
    names = ("client", "start_round", "end_round", "period")
    values = []
    for name, cell in zip(names, cells, strict=False):
        if not _numeric(cell):
            raise TraceError(f"{where}: {name} {cell!r} is not an integer")
        values.append(int(cell))
    client, start, end = values[:3]
    period = values[3] if len(values) == 4 else 0
    if client < 0 or start < 0:
        raise TraceError(f"{where}: client and start_round must be >= 0")
    if end <= start:
        raise TraceError(f"{where}: end_round ({end}) must exceed start_round ({start})")
    if len(values) == 4 and period < end:
        raise TraceError(f"{where}: period ({period}) must be >= end_round ({end})")
    return [client, start, end, period]


class Trace(Availability):
    """π_k: share of the rounds 0 ≤ t < L in which k is available, with L the least
    common multiple of the periods, extended to the last one-off end_round (exact
    long-run shares; above MAX_HORIZON rounds L falls back to the longest period/end)."""

    MAX_HORIZON = 100_000

    def __init__(self, rows: Tensor, n: int) -> None:
        self.rows = rows
        self.size = int(rows[:, 0].max()) + 1
        self.owner = torch.arange(n) % self.size
        self.pi = self._share(self._horizon()).mean(dim=1)[self.owner]

    def _horizon(self) -> int:
        periods = [int(p) for p in self.rows[:, 3] if p > 0]
        cycle = math.lcm(*periods) if periods else 1
        if cycle > self.MAX_HORIZON:
            return int(torch.maximum(self.rows[:, 2], self.rows[:, 3]).max())
        last_end = max((int(r[2]) for r in self.rows if r[3] == 0), default=0)
        return cycle * max(1, math.ceil(last_end / cycle))

    def _share(self, length: int) -> Tensor:
        """(M, length) availability of each trace client over the first rounds."""
        t = torch.arange(length)
        on = torch.zeros(self.size, length, dtype=torch.float64)
        for client, start, end, period in self.rows.tolist():
            phase = t % period if period else t
            on[client] = torch.maximum(on[client], ((start <= phase) & (phase < end)).double())
        return on

    def _trace_mask(self, t: int) -> Tensor:
        client, start, end, period = self.rows.unbind(dim=1)
        phase = torch.where(period > 0, t % period.clamp(min=1), torch.full_like(period, t))
        active = (start <= phase) & (phase < end)
        out = torch.zeros(self.size, dtype=torch.bool)
        out[client[active]] = True
        return out

    def mask(self, t: int) -> Tensor:
        return self._trace_mask(t)[self.owner]
