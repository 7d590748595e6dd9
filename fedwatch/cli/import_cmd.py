"""`fedwatch import DIR [--server URL] [--experiment NAME]`: upload a finished `fedwatch
compare` or `fedwatch reproduce` output folder into a FedWatch server as one experiment,
every run with all its rounds (metrics, availability, selection and weights, per-client
accuracy), so that every client view shows it, and the availability period its round 0
carries (a folder written before round 0 carried it has none: no "x̄ last period").

Each run file becomes an SDK spool (`fedwatch.spool`) under `DIR/.fedwatch-import/`,
uploaded as `fedwatch sync` uploads one: the ingest path of every external run. A run
keeps when it happened: it finished when its file was written, and started its wall time
before. Imported again, the spools name the runs already on the server, and nothing is
stored twice.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fedwatch.cli.recording import add_server_arguments, period_of, round_entry
from fedwatch.errors import CliError
from fedwatch.spool import SUFFIX, Spool, sync
from fedwatch.transport import Refused, TooLarge, Transport, Unreachable

MARKERS = ("table.json", "report.json")  # what `compare` and `reproduce` write beside the runs
SPOOLS = ".fedwatch-import"
RUN_KEYS = ("config", "summary", "rounds")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("import", help="upload a finished compare or reproduce folder into a server")
    p.add_argument("directory", type=Path, help="the output folder of compare or reproduce")
    p.add_argument("--experiment", help="the experiment's name (default: the folder's name)")
    add_server_arguments(p)
    p.set_defaults(handler=run)


def run_files(directory: Path) -> list[Path]:
    """The run files of an output folder; CliError where it is none."""
    if not directory.is_dir():
        raise CliError(
            f"{directory}: not a folder (give the output folder of compare or reproduce)"
        )
    if not any((directory / m).is_file() for m in MARKERS):
        raise CliError(
            f"{directory}: not an output folder of fedwatch compare or reproduce "
            f"(it holds neither {' nor '.join(MARKERS)})"
        )
    files = sorted(p for p in directory.glob("*.json") if p.name not in MARKERS)
    if not files:
        raise CliError(f"{directory}: no run files (*.json) to import")
    return files


def load_run(path: Path) -> dict[str, Any]:
    """A run file's contents, checked: CliError naming the file and what is wrong."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise CliError(f"{path}: not readable as JSON ({err})") from None
    if not isinstance(data, dict):
        raise CliError(f"{path}: not a run file of compare or reproduce (not a JSON object)")
    missing = [k for k in RUN_KEYS if k not in data]
    if missing:
        raise CliError(f"{path}: not a run file of compare or reproduce (no {', '.join(missing)})")
    for key, kind in (("config", dict), ("summary", dict), ("rounds", list)):
        if not isinstance(data[key], kind):
            what = "an object" if kind is dict else "a list"
            raise CliError(f"{path}: its {key} is not {what}")
    data_section = data["config"].get("data")
    n_clients = data_section.get("n_clients") if isinstance(data_section, dict) else None
    if not isinstance(n_clients, int) or isinstance(n_clients, bool):
        raise CliError(f"{path}: its config has no data.n_clients")
    for i, entry in enumerate(data["rounds"]):
        _check_round(path, i, entry)
    facts = data["rounds"][0].get("clients") if data["rounds"] else None
    if facts is not None and not isinstance(facts, dict):
        raise CliError(f"{path}: round 0's clients are not an object of facts")
    period = (facts or {}).get("availability_period")
    if period is not None and (
        not isinstance(period, int) or isinstance(period, bool) or period < 1
    ):
        raise CliError(
            f"{path}: round 0's availability_period {period!r} is not a whole number ≥ 1"
        )
    return data


def _check_round(path: Path, i: int, entry: Any) -> None:
    """CliError naming the file and the entry where the rounds' entry `i` is not one
    that `round_entry` can send: its number, its metrics' values, its wall time."""
    number = entry.get("round") if isinstance(entry, dict) else None
    if not isinstance(number, int) or isinstance(number, bool):
        raise CliError(f"{path}: its rounds' entry {i} has no round number")
    wall = entry.get("wall_s", 0.0)
    if not isinstance(wall, int | float) or isinstance(wall, bool):
        raise CliError(f"{path}: round {number}'s wall_s {wall!r} is not a number")
    try:
        round_entry(entry)
    except (TypeError, ValueError) as err:
        raise CliError(
            f"{path}: round {number} holds a metric that is not a number ({err})"
        ) from None


def spool_of(path: Path, data: dict[str, Any], experiment: str, spools: Path) -> Path:
    """The run's spool in `spools`: the one of an earlier import (it knows the run's id
    on the servers that took it), else one written now."""
    target = spools / f"{path.stem}{SUFFIX}"
    if target.exists():
        return target
    config, rounds = data["config"], data["rounds"]
    finished = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    started = finished - timedelta(seconds=max((r.get("wall_s", 0.0) for r in rounds), default=0))
    declaration = {
        "name": f"{config.get('name', path.parent.name)} {path.stem}",
        "config": config,
        "n_clients": config["data"]["n_clients"],
        "experiment": experiment,
        "rounds": config.get("rounds") or len(rounds),
        "created_at": started.isoformat(),
        "started_at": started.isoformat(),
    }
    period = period_of(rounds[0]) if rounds else None  # round 0 carries the clients' facts
    if period is not None:  # as `FedWatch.start_run` declares it
        declaration["availability_period"] = period
    entries = [{"kind": "run", **declaration}]
    entries += [{"kind": "round", **round_entry(r), "wall_s": r.get("wall_s", 0.0)} for r in rounds]
    status = "failed" if data["summary"].get("stopped") else "succeeded"
    entries.append({"kind": "finish", "status": status, "message": None,
                    "finished_at": finished.isoformat()})  # fmt: skip
    partial = target.with_suffix(".partial")  # a spool appears whole, or not at all
    partial.unlink(missing_ok=True)
    Spool(partial).append(entries)
    partial.rename(target)
    return target


def run(args: argparse.Namespace) -> int:
    if not args.server:
        raise CliError("--server URL (or $FEDWATCH_URL): the server to import into")
    directory: Path = args.directory
    runs = [(path, load_run(path)) for path in run_files(directory)]  # all checked first
    experiment = args.experiment or directory.resolve().name
    spools = directory / SPOOLS
    try:
        spools.mkdir(exist_ok=True)
    except OSError as err:
        raise CliError(f"{spools}: cannot write the runs' spools ({err})") from None
    transport = Transport(args.server, args.token, timeout_s=60)
    failed = 0
    for path, data in runs:
        spool = spool_of(path, data, experiment, spools)
        try:
            run_id, rounds, stored = sync(spool, transport)
        except Unreachable as err:
            raise CliError(f"{args.server} unreachable: {err}") from None
        except (Refused, TooLarge) as err:
            print(f"{path.name}: not imported: {err}")
            failed += 1
            continue
        print(f"{path.name}: run {run_id}, {rounds} rounds, {stored} new")
    print(f"experiment {experiment!r}: {len(runs) - failed} of {len(runs)} runs at {args.server}")
    return 1 if failed else 0
