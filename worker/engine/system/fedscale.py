"""FedScale's device files: each client's speeds and, in seconds, when it is online.

Two pickled dicts, as FedScale ships them (`client_device_capacity`,
`client_behave_trace`), keyed by a client id (all ints or all strings):

- device capacity: `{id: {"computation": ms, "communication": kbit/s}}`, where
  `computation` is the client's inference time per sample in milliseconds (training
  takes `compute_factor` times as long: 3, FedScale's factor for a forward and a
  backward pass) and `communication` its bandwidth in kbit/s, both ways;
- behaviour trace: `{id: {"active": [s, ...], "inactive": [s, ...], "finish_time": s,
  ...}}`: the client is online from each `active[i]` to `inactive[i]` (seconds), and
  the pattern repeats every `finish_time` seconds; other keys (`duration`, `model`)
  are ignored.

Run client k follows the (k mod M)-th client of each file, in ascending order of id.
Both files are read with a restricted unpickler (`unpickle.py`), from paths under the
run's data folder (`data.root`); left empty, a small synthetic pair shipped with
FedWatch (`fedscale_sample/`, made by `sample.py`).
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import torch
from pydantic import Field

from worker.engine.errors import ConfigError
from worker.engine.params import Params
from worker.engine.paths import MAX_PATH_CHARS, inside, is_file, shown, unnamable
from worker.engine.registry import system
from worker.engine.system.base import SystemContext, SystemModel
from worker.engine.system.sessions import Sessions
from worker.engine.system.unpickle import load_data_pickle
from worker.engine.timespan import MAX_SECONDS, MIN_SECONDS

FIELD = "system.fedscale"
SAMPLE = Path(__file__).parent / "fedscale_sample"
SAMPLE_FILES = {
    "device_file": "client_device_capacity.pkl",
    "trace_file": "client_behave_trace.pkl",
}
KBPS = 1000 / 8  # bytes per second in a kbit/s
MAX_FLOAT_INT = int(sys.float_info.max)  # larger integers overflow a float
TINY = sys.float_info.min  # the smallest positive normal float
MIN_KBPS = 1 / (MAX_SECONDS * KBPS)  # a byte takes at most MAX_SECONDS


class FedScaleParams(Params):
    device_file: str = Field(
        "",
        max_length=MAX_PATH_CHARS,
        description="Device capacity pickle (client → computation ms/sample, communication "
        "kbit/s), a path under the data folder (empty: the synthetic sample).",
    )
    trace_file: str = Field(
        "",
        max_length=MAX_PATH_CHARS,
        description="Behaviour trace pickle (client → active, inactive, finish_time in "
        "seconds), a path under the data folder (empty: the synthetic sample).",
    )
    trace_availability: bool = Field(
        True,
        description="Clients are available only while the trace has them online (off: "
        "the speeds alone; availability.kind decides who is there).",
    )
    compute_factor: float = Field(
        3.0, gt=0, description="Training time per sample over the inference time given."
    )


def resolve(root: str, field: str, name: str) -> tuple[Path, str]:
    """The file `name` names under the data folder `root` (empty: the shipped sample's)
    and how errors show it."""
    path = f"{FIELD}.{field}"
    if not name:
        return SAMPLE / SAMPLE_FILES[field], f"the synthetic sample {SAMPLE_FILES[field]!r}"
    relative = PurePosixPath(name)
    if relative.is_absolute() or ".." in relative.parts or "\\" in name:
        raise ConfigError(f"{path}: {name!r} must be a path inside the data folder, without '..'")
    if why := unnamable(name):
        raise ConfigError(f"{path}: {shown(name)} {why}")
    file = inside(Path(root), name)
    if file is None:
        raise ConfigError(f"{path}: {name!r} leads outside the data folder")
    if not is_file(file):
        raise ConfigError(f"{path}: no file {name!r} in the data folder")
    return file, f"file {name!r}"


def read_table(path: Path, field: str, shown: str) -> tuple[dict[Any, Any], str]:
    """The pickled dict in `path` (a client per key) and how errors name it."""
    where = f"{FIELD}.{field}: {shown}"
    table = load_data_pickle(path, f"{FIELD}.{field}", shown)
    if not isinstance(table, dict) or not table:
        raise ConfigError(f"{where}: expected a non-empty dict of clients")
    kinds = {type(k) for k in table}
    if len(kinds) > 1:
        raise ConfigError(f"{where}: client ids must be all integers or all strings")
    return table, where


def parsed(root: str, field: str, name: str) -> tuple[np.ndarray, ...]:
    """The arrays of the file `name` names (`capacities` or `behaviour`), read once
    while the file stays the same."""
    path, shown = resolve(root, field, name)
    info = path.stat()
    return _parsed(path, (info.st_mtime_ns, info.st_size), field, shown)


@functools.lru_cache(maxsize=4)
def _parsed(path: Path, stamp: tuple[int, int], field: str, shown: str) -> tuple[np.ndarray, ...]:
    del stamp  # part of the key: a changed file is read again
    table, where = read_table(path, field, shown)
    return capacities(table, where) if field == "device_file" else behaviour(table, where)


def number_text(value: int | float) -> str:
    """A number of a file as an error shows it: an integer past the float range by its
    size (Python will not print one of over 4300 digits)."""
    if isinstance(value, int) and abs(value) > MAX_FLOAT_INT:
        return f"an integer of {value.bit_length()} bits"
    return f"{value:g}"


def _in_range(value: Any, low: float, high: float) -> bool:
    """Whether `value` is a number (no string, no boolean) from `low` to `high`."""
    if type(value) not in (int, float):
        return False
    return (not isinstance(value, int) or abs(value) <= MAX_FLOAT_INT) and low <= value <= high


def _number(
    entry: Mapping[Any, Any], key: str, where: str, client: Any, low: float, high: float
) -> float:
    """`entry[key]`, a number from `low` to `high`; ConfigError naming the value, its
    client and its file otherwise."""
    value = entry.get(key)
    if not isinstance(value, int | float):  # the unpickler admits no booleans
        raise ConfigError(f"{where}: client {client!r} has no number {key!r}")
    if not _in_range(value, low, high):
        raise ConfigError(
            f"{where}: client {client!r} has {key} {number_text(value)}, outside "
            f"[{low:g}, {high:g}]"
        )
    return float(value)


def _entries(table: dict[Any, Any], where: str) -> list[tuple[Any, dict[Any, Any]]]:
    rows = sorted(table.items(), key=lambda item: item[0])
    for client, entry in rows:
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: client {client!r} is not a dict")
    return rows


def capacities(table: dict[Any, Any], where: str) -> tuple[np.ndarray, np.ndarray]:
    """(computation ms per sample, communication kbit/s) per client, in id order: each
    a time the clock takes (`timespan.py`), the time a byte takes included."""
    rows = _entries(table, where)
    compute = np.array(
        [_number(e, "computation", where, c, TINY, MAX_SECONDS * 1000) for c, e in rows]
    )
    link = np.array([_number(e, "communication", where, c, MIN_KBPS, math.inf) for c, e in rows])
    return compute, link


def _times(values: list[Any], where: str, client: Any, key: str) -> np.ndarray:
    """A client's session times, numbers from 0 to `MAX_SECONDS`."""
    for value in values:
        if type(value) not in (int, float):
            raise ConfigError(f"{where}: client {client!r} has a time that is not a number")
        if not _in_range(value, 0, MAX_SECONDS):
            raise ConfigError(
                f"{where}: client {client!r} has an {key!r} time of {number_text(value)}, "
                f"outside [0, {MAX_SECONDS:g}] s"
            )
    return np.array(values, dtype=np.float64)


def behaviour(table: dict[Any, Any], where: str) -> tuple[np.ndarray, ...]:
    """(client, start, end) per session and the period of each client, in id order.
    The arrays are allocated once at their size (the file's size was bounded when it
    was read, `unpickle.MAX_VALUES`)."""
    rows = _entries(table, where)
    for client, entry in rows:
        active, inactive = entry.get("active"), entry.get("inactive")
        if not isinstance(active, list) or not isinstance(inactive, list):
            raise ConfigError(f"{where}: client {client!r} needs lists 'active' and 'inactive'")
        if len(active) != len(inactive):
            raise ConfigError(
                f"{where}: client {client!r} has {len(active)} 'active' times "
                f"and {len(inactive)} 'inactive' ones"
            )
    total = sum(len(entry["active"]) for _, entry in rows)
    if not total:
        raise ConfigError(f"{where}: no client has a session")
    clients = np.empty(total, dtype=np.int64)
    starts, ends = np.empty(total), np.empty(total)
    periods = np.empty(len(rows))
    at = 0
    for i, (client, entry) in enumerate(rows):
        periods[i] = _number(entry, "finish_time", where, client, MIN_SECONDS, MAX_SECONDS)
        start = _times(entry["active"], where, client, "active")
        end = _times(entry["inactive"], where, client, "inactive")
        if np.any(start > end):
            raise ConfigError(
                f"{where}: client {client!r} has a session that ends before it starts"
            )
        span = slice(at, at + len(start))
        clients[span], starts[span], ends[span] = i, start, end
        at = span.stop
    return clients, starts, ends, periods


@system("fedscale", params=FedScaleParams, label="FedScale device trace")
class FedScale(SystemModel):
    def __init__(self, params: FedScaleParams, facts: SystemContext) -> None:
        runs = np.arange(facts.n)
        compute_ms, kbps = parsed(facts.root, "device_file", params.device_file)
        owner = runs % len(compute_ms)
        slowest = float(compute_ms.max())
        if not params.compute_factor * slowest / 1000 <= MAX_SECONDS:
            raise ConfigError(
                f"{FIELD}.compute_factor: {params.compute_factor:g} times the slowest "
                f"computation of its device file ({slowest:g} ms) takes a sample past "
                f"{MAX_SECONDS:g} s"
            )
        self.s_per_sample = torch.from_numpy(params.compute_factor * compute_ms[owner] / 1000)
        self.down_bps = torch.from_numpy(kbps[owner] * KBPS)
        self.up_bps = self.down_bps.clone()
        if params.trace_availability:
            client, start, end, period = parsed(facts.root, "trace_file", params.trace_file)
            self.sessions = Sessions(client, start, end, period, runs % len(period))
