"""Runs of `simulate`, `compare` and `reproduce` recorded into a FedWatch server as they
run: `--server URL` (default $FEDWATCH_URL) and `--token` ($FEDWATCH_TOKEN, as
`fedwatch sync`). Each run is an external run of the SDK (`fedwatch.client`): declared
at its first round with its config and the availability period that round's facts carry
(the engine knows it only once it has built the run), every round sent by
`Run.log_round`, its end by `Run.finish`; a server that is down leaves the run in the
SDK's spool, for `fedwatch sync`.

`round_entry` and `period_of` read a round as the CLI writes it (`RoundRecord.to_dict`,
also the rounds of an output folder that `fedwatch import` uploads).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fedwatch.client import FedWatch, Run

if TYPE_CHECKING:
    from worker.engine import ModelFile, RoundRecord, RunConfig, Sink

SERVER_ENV = "FEDWATCH_URL"
TOKEN_ENV = "FEDWATCH_TOKEN"
# A round's fields that are not metrics (`RoundRecord.to_dict`); `timeline` and
# `clients` (a system model's and round 0's facts) have no place in the ingest API.
NOT_METRICS = frozenset(
    {"round", "available", "selected", "weights", "wall_s", "client_acc", "timeline", "clients"}
)


def add_server_arguments(p: argparse.ArgumentParser) -> None:
    """`--server URL` and `--token T`, defaulting to $FEDWATCH_URL and $FEDWATCH_TOKEN."""
    p.add_argument(
        "--server",
        default=os.environ.get(SERVER_ENV) or None,
        metavar="URL",
        help="record the runs into this FedWatch server as they run, e.g. "
        f"http://host:8000 (default: ${SERVER_ENV}); a server that is down leaves them in "
        "the SDK's spool, for `fedwatch sync`",
    )
    p.add_argument(
        "--token",
        default=os.environ.get(TOKEN_ENV),
        help=f"the server's API token (default: ${TOKEN_ENV})",
    )


@dataclass(frozen=True)
class Target:
    """Where the runs go (plain values: it travels to `compare`'s worker processes)."""

    url: str
    token: str | None
    experiment: str | None = None


def target_of(args: argparse.Namespace, experiment: str | None = None) -> Target | None:
    """The server of `--server`/$FEDWATCH_URL, None without one."""
    if not args.server:
        return None
    return Target(args.server, args.token, experiment)


def round_entry(record: Mapping[str, Any]) -> dict[str, Any]:
    """A round as the SDK sends it (the spool's round; `Run.log_round`'s arguments but
    `round`): every key but the round's own fields is a metric; a value that is not
    finite is None, as the SDK sends it."""
    metrics = {k: _finite(v) for k, v in record.items() if k not in NOT_METRICS}
    entry: dict[str, Any] = {"round": int(record["round"]), "metrics": metrics}
    for key in ("available", "selected", "weights"):
        if record.get(key) is not None:
            entry[key] = record[key]
    if record.get("client_acc") is not None:
        entry["client_acc"] = [_finite(a) for a in record["client_acc"]]
    return entry


def period_of(record: Mapping[str, Any]) -> int | None:
    """The availability period that a round's client facts carry (`ClientFacts`, in
    round 0's record), None where they carry none."""
    period = (record.get("clients") or {}).get("availability_period")
    return None if period is None else int(period)


def _finite(value: Any) -> float | None:
    number = float(value)
    return number if math.isfinite(number) else None


class RunSink:
    """An engine sink that records the run into a server as an SDK run, declared at its
    first round with the availability period of that round's facts."""

    def __init__(self, fw: FedWatch, config: RunConfig, name: str, experiment: str | None) -> None:
        self.fw = fw
        self.config = config
        self.name = name
        self.experiment = experiment
        self.run: Run | None = None

    def declared(self, period: int | None = None) -> Run:
        """The run, declared now if it is not yet (with `period`)."""
        if self.run is None:
            config = self.config
            self.run = self.fw.start_run(
                self.name,
                config.model_dump(mode="json"),
                config.data.n_clients,
                self.experiment,
                config.rounds,
                period,
            )
        return self.run

    def on_round(self, record: RoundRecord) -> None:
        entry = record.to_dict()
        run = self.declared(period_of(entry))
        logged = round_entry(entry)
        run.log_round(logged.pop("round"), **logged)

    def on_checkpoint(self, state: dict[str, Any]) -> None:
        """Checkpoints stay in the process (a CLI run does not resume)."""

    def on_model(self, model: ModelFile) -> None:
        """The model is the `--model` option's file, not the server's."""


class Tee:
    """One sink that hands everything to several."""

    def __init__(self, *sinks: Sink) -> None:
        self.sinks = sinks

    def on_round(self, record: RoundRecord) -> None:
        for sink in self.sinks:
            sink.on_round(record)

    def on_checkpoint(self, state: dict[str, Any]) -> None:
        for sink in self.sinks:
            sink.on_checkpoint(state)

    def on_model(self, model: ModelFile) -> None:
        for sink in self.sinks:
            sink.on_model(model)


@contextmanager
def recorded(sink: Sink, config: RunConfig, name: str, target: Target | None) -> Iterator[Sink]:
    """The sink to simulate into: `sink`, and with a target the run recorded there too
    (an error inside the block finishes it as failed, declared then if it failed before
    its first round). Says where it went on stderr."""
    if target is None:
        yield sink
        return
    recording = RunSink(FedWatch(target.url, target.token), config, name, target.experiment)
    try:
        yield Tee(sink, recording)
    except BaseException:
        with recording.declared():  # ends the run as failed, with the error
            raise
    run = recording.declared()
    if run.finish():
        print(f"{name}: recorded as run {run.id} at {target.url}", file=sys.stderr)
