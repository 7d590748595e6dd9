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
from typing import Literal

import numpy as np
import torch
from pydantic import Field
from torch import Tensor

from worker.engine.availability.base import (
    Availability,
    AvailabilityContext,
    check_dataset_population,
    dataset_population,
)
from worker.engine.availability.intervals import covered, merge
from worker.engine.errors import ConfigError
from worker.engine.params import Params, RunShape
from worker.engine.registry import availability

FIELD = "availability.trace.csv"
POPULATION_FIELD = "availability.trace.population"
MAX_HORIZON = 100_000  # longest cycle of periods π is averaged over exactly
LARGEST = 2**62  # rounds and ids beyond this overflow the int64 arithmetic


class TraceError(ConfigError):
    pass


class TraceParams(Params):
    csv: str = Field(
        "", description="CSV text: client,start_round,end_round[,period] (end exclusive)."
    )
    population: Literal["trace", "dataset"] = Field(
        "trace",
        description="π and λ that estimators read: the trace's long-run shares (no λ), or "
        "the dataset's population (the on/off draws stay the trace's).",
    )

    def check_run(self, run: RunShape) -> None:
        if not self.csv.strip():
            raise ValueError(f"{FIELD}: a trace needs at least one interval")
        if self.population == "dataset":
            check_dataset_population(POPULATION_FIELD, run)


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
        value = int(cell)
        if value >= LARGEST:
            raise TraceError(f"{where}: {name} {value} is too large (at most 2^62 - 1)")
        values.append(value)
    client, start, end = values[:3]
    period = values[3] if len(values) == 4 else 0
    if client < 0 or start < 0:
        raise TraceError(f"{where}: client and start_round must be >= 0")
    if end <= start:
        raise TraceError(f"{where}: end_round ({end}) must exceed start_round ({start})")
    if len(values) == 4 and period < end:
        raise TraceError(f"{where}: period ({period}) must be >= end_round ({end})")
    return [client, start, end, period]


def horizon(rows: Tensor) -> int:
    """L: the least common multiple of the periods, extended to the last one-off
    end_round; above MAX_HORIZON, the longest period or end_round instead."""
    end, period = rows[:, 2], rows[:, 3]
    cycle = math.lcm(*set(period[period > 0].tolist()))
    if cycle > MAX_HORIZON:
        return int(torch.maximum(end, period).max())
    last_end = int(end[period == 0].max()) if bool((period == 0).any()) else 0
    return cycle * max(1, -(-last_end // cycle))


def _cycles(client: np.ndarray, period: np.ndarray, length: int) -> np.ndarray:
    """Per client, the rounds after which its periodic rows repeat together (the lcm
    of its periods), capped at `length`; 1 for a client with none."""
    cycle = [1] * (int(client.max()) + 1)
    for c, p in zip(client.tolist(), period.tolist(), strict=True):
        if p:
            cycle[c] = min(math.lcm(cycle[c], p), length)
    return np.array(cycle, dtype=np.int64)


def _copies(rows: np.ndarray, cycle: np.ndarray) -> np.ndarray:
    """How many times each periodic row starts within its client's cycle."""
    client, start, _, period = rows.T
    return np.where(period > 0, -((start - cycle[client]) // np.maximum(period, 1)), 0)


def interval_count(rows: Tensor) -> int:
    """Intervals `on_rounds` works on: the one-off rows and every repetition of a
    periodic row within its client's cycle (what its time and memory grow with)."""
    dense = _dense(rows.numpy())
    copies = _copies(dense, _cycles(dense[:, 0], dense[:, 3], horizon(rows)))
    return int(np.where(dense[:, 3] > 0, copies, 1).sum())


def _dense(rows: np.ndarray) -> np.ndarray:
    """The rows with client ids replaced by their rank among the trace's ids."""
    _, client = np.unique(rows[:, 0], return_inverse=True)
    return np.column_stack([client, rows[:, 1:]])


def on_rounds(rows: Tensor, length: int) -> tuple[Tensor, Tensor]:
    """(ids, counts): the trace's client ids and the rounds 0 ≤ t < length in which
    each is available. Periodic rows are unrolled over one cycle of their client and
    counted once per cycle; one-off rows count where they add to that."""
    raw = rows.numpy()
    ids = np.unique(raw[:, 0])
    dense = _dense(raw)
    client, start, end, period = dense.T
    cycle = _cycles(client, period, length)
    repeats = dense[period > 0]
    copies = _copies(repeats, cycle)
    row = np.repeat(np.arange(len(repeats)), copies)
    step = np.arange(len(row)) - np.repeat(np.cumsum(copies) - copies, copies)
    pc, ps, pe, pp = (column[row] for column in repeats.T)
    pattern = merge(pc, ps + pp * step, np.minimum(pe + pp * step, cycle[pc]))
    per_cycle = covered(pattern, np.arange(len(ids)), cycle)

    def periodic(c: np.ndarray, upto: np.ndarray) -> np.ndarray:
        """Rounds in [0, upto) covered by the periodic rows of clients c."""
        return (upto // cycle[c]) * per_cycle[c] + covered(pattern, c, upto % cycle[c])

    oc, os, oe = merge(client[period == 0], start[period == 0], end[period == 0])
    counts = periodic(np.arange(len(ids)), np.full(len(ids), length))
    extra = (oe - os) - (periodic(oc, oe) - periodic(oc, os))
    np.add.at(counts, oc, extra)
    return torch.from_numpy(ids), torch.from_numpy(counts)


@availability("trace", params=TraceParams, label="trace replay")
class Trace(Availability):
    """π_k: share of the rounds 0 ≤ t < L (see `horizon`) in which k is available:
    exact long-run shares, counted on the intervals (`interval_count` of them), never
    round by round, so a long horizon costs nothing."""

    def __init__(self, rows: Tensor, n: int) -> None:
        self.rows = rows
        self.size = int(rows[:, 0].max()) + 1
        self.owner = torch.arange(n) % self.size
        length = horizon(rows)
        ids, counts = on_rounds(rows, length)
        slot = torch.searchsorted(ids, self.owner).clamp(max=len(ids) - 1)
        share = counts.double() / length
        self.pi = torch.where(ids[slot] == self.owner, share[slot], 0.0)

    @classmethod
    def from_params(cls, params: TraceParams, facts: AvailabilityContext) -> Availability:
        """With `population = dataset`, `pi` and `lam` are the dataset's population
        (what oracle estimators read) while `mask` still replays the trace."""
        model = cls(parse_trace(params.csv), facts.n)
        if params.population == "dataset":
            population = dataset_population(POPULATION_FIELD, facts)
            model.pi, model.lam = population.pi, population.lam
        return model

    def _active(self, t: int) -> Tensor:
        """Trace ids of the clients available in round t."""
        client, start, end, period = self.rows.unbind(dim=1)
        phase = torch.where(period > 0, t % period.clamp(min=1), torch.full_like(period, t))
        return client[(start <= phase) & (phase < end)]

    def mask(self, t: int) -> Tensor:
        return torch.isin(self.owner, self._active(t))
