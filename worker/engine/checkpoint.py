"""Which checkpoints load, in one place: a run's state as `Simulation.state_dict` writes
it (`VERSION`), and every earlier layout, upgraded here before any component reads it.

- Version 3, written since async runs' clients in flight keep when each started and
  when its download and computation ended (their timeline): every part present.
- Version 2, written since the layout was fixed: an async run's clients in flight lack
  those three times; each reads as its arrival (a point on the timeline, not a span).
- Version 1, written by every engine before: parts added over time may be absent (the
  server's and the trainer's state, the tracker's `last_s` and participation counts,
  its summary's `acc_time`, `initial`, `param_window`, `first_param`); they start as a
  new run's do, which is what those engines did. Three are read differently: a
  tracker whose summary state sits at its top level with `last_loss` (before the summary
  had its own tracker), the tracker's `seen_ids` (the clients weighted so far: those
  with a share), and CA-Fed's state without `started` (started once any client
  reported).

Any other version is refused with the versions that load.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from worker.engine.errors import ConfigError

VERSION = 3
LOADS = (1, 2, 3)
# The summary's state, where a tracker held it at its top level.
_SUMMARY_KEYS = (
    "acc",
    "acc_time",
    "initial",
    "updates",
    "param_window",
    "first_param",
    "last_loss",
)


def upgrade(
    state: Mapping[str, Any], fresh: Callable[[], Mapping[str, Any]], algorithm: str
) -> dict[str, Any]:
    """`state` in the current layout; `fresh()`: the state of the same run built anew
    (what an absent part starts as); `algorithm`: the run's `algorithm.name`."""
    version = state.get("version")
    if version not in LOADS:
        loads = ", ".join(map(str, LOADS))
        raise ConfigError(f"checkpoint: version {version!r} does not load here (these do: {loads})")
    if version == VERSION:
        return dict(state)
    old = dict(state)
    if "flights" in old:
        old["flights"] = _timed_flights(old["flights"])
    if version == 2:
        return {**old, "version": VERSION}
    tracker = dict(old["tracker"])
    if "summary" not in tracker:  # the summary's state at the tracker's top level
        tracker["summary"] = {k: tracker.pop(k) for k in _SUMMARY_KEYS if k in tracker}
    summary = dict(tracker["summary"])
    if "last_values" not in summary:  # only the last test loss was kept
        loss = summary.pop("last_loss", None)
        summary["last_values"] = {} if loss is None else {"test_loss": float(loss)}
    tracker["summary"] = summary
    if "seen_ids" not in tracker:  # the clients weighted so far, in id order
        tracker["seen_ids"] = (tracker["p_sum"] > 0).nonzero().flatten()
    old["tracker"] = tracker
    if algorithm == "cafed" and "started" not in old["algorithm"]:
        old["algorithm"] = {**old["algorithm"], "started": bool(old["algorithm"]["reported"].any())}
    return {**_filled(old, fresh()), "version": VERSION}


def _timed_flights(flights: Mapping[str, Any]) -> dict[str, Any]:
    """Clients in flight without their start, download and compute times: each at its
    arrival (or stop)."""
    flying = dict(flights["flying"])
    for key in ("begin", "download_end", "compute_end"):
        flying.setdefault(key, flying["end"].copy())
    return {**flights, "flying": flying}


def _filled(state: Mapping[str, Any], fresh: Mapping[str, Any]) -> dict[str, Any]:
    """`state` with what it lacks of `fresh`, section by section."""
    out = dict(state)
    for key, value in fresh.items():
        if key not in out:
            out[key] = value
        elif isinstance(value, Mapping) and isinstance(out[key], Mapping):
            out[key] = _filled(out[key], value)
    return out
