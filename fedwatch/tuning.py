"""The client side of `/api/tunes`: submit a tune, wait for it, and read its two tables
as DataFrames (the final comparison, as `fedwatch.read.compare_table` gives it, with the
protocol heading its caption; each method's chosen settings) and its trials."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fedwatch import read
from fedwatch.transport import Transport

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Tuned:
    """A finished tune: `comparison` (a row a method: the final runs on fresh seeds;
    `attrs["caption"]` starts with the protocol), `settings` (a row a method: each
    searched key's chosen value, the best validation value, trials by state, `short`
    where it finished fewer than the budget) and `trials` (a row a trial)."""

    id: int
    protocol: str
    comparison: pd.DataFrame
    settings: pd.DataFrame
    trials: pd.DataFrame


# The server checks a tune before it answers, running one round of each method: longer
# than a request's usual timeout on a first use (the engine's imports) or a busy machine.
SUBMIT_TIMEOUT_S = 120.0


def submit(transport: Transport, body: Mapping[str, Any]) -> int:
    """POST the tune; its id. A refused one raises `Refused` with the server's 422."""
    patient = Transport(transport.url, transport.token, max(transport.timeout_s, SUBMIT_TIMEOUT_S))
    created: dict[str, Any] = patient.post("/api/tunes", dict(body))
    return int(created["id"])


def wait(
    transport: Transport, tune_id: int, timeout_s: float | None, poll_s: float
) -> dict[str, Any]:
    """The tune once done (its final runs finished); TimeoutError after `timeout_s`."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        tune: dict[str, Any] = transport.get_json(f"/api/tunes/{tune_id}")
        if tune["status"] == "done":
            return tune
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError(f"tune {tune_id} is still {tune['status']} after {timeout_s} s")
        time.sleep(poll_s)


def tables(transport: Transport, tune: Mapping[str, Any], alpha: float | None = None) -> Tuned:
    pd = read.pandas()
    keys = [text.split("=", 1)[0] for text in tune["spec"]["space"]]
    settings = pd.DataFrame(
        [
            {
                "method": p["method"],
                **{k: (p["best_params"] or {}).get(k) for k in keys},
                "best_value": p["best_value"],
                **{s: p[s] for s in ("complete", "pruned", "failed", "short")},
            }
            for p in tune["progress"]
        ]
    ).set_index("method")
    trials = pd.DataFrame(
        [
            {k: t[k] for k in ("method", "number", "state", "value", "run_id", "pruned_at_round")}
            | {f"params.{k}": v for k, v in t["params"].items()}
            for t in tune["trials"]
        ]
    )
    comparison = read.compare_table(transport, int(tune["experiment_id"]), alpha=alpha)
    caption = " ".join([tune["protocol"], *tune["flags"], comparison.attrs["caption"]])
    comparison.attrs.update(caption=caption, protocol=tune["protocol"])
    return Tuned(int(tune["id"]), tune["protocol"], comparison, settings, trials)


def tune_body(
    preset: str,
    space: Sequence[str] | Mapping[str, Mapping[str, Any]],
    options: Mapping[str, Any],
) -> dict[str, Any]:
    """The request: `space` as `key=kind:...` texts or `{key: {"kind", "low", "high"}}`;
    `options` the other fields of `POST /api/tunes` (None values left to the server)."""
    body: dict[str, Any] = {"preset": preset}
    body["space"] = (
        list(space) if not isinstance(space, Mapping) else {k: dict(v) for k, v in space.items()}
    )
    body.update(
        {k: list(v) if isinstance(v, tuple) else v for k, v in options.items() if v is not None}
    )
    return body
