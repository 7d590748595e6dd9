"""`fedwatch tune ... --server URL`: the same tune submitted to a FedWatch server
(`POST /api/tunes`), which spreads its trials over its workers; the command waits and
prints both tables as the server renders them (`GET /api/tunes/{id}/tables`), with the
table arguments the local command takes (`--reference`, `--label`, `--alpha`,
`--columns`) as its query."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from fedwatch.cli.compare_cmd import table_query
from fedwatch.cli.recording import TOKEN_ENV
from fedwatch.errors import CliError
from fedwatch.transport import Refused, Transport, Unreachable
from fedwatch.tuning import submit, wait


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--server",
        metavar="URL",
        help="submit the tune to this FedWatch server (its workers run the trials) instead "
        "of running it here",
    )
    p.add_argument(
        "--token",
        default=os.environ.get(TOKEN_ENV),
        help=f"the server's API token (default: ${TOKEN_ENV})",
    )


def body_of(args: argparse.Namespace) -> dict[str, Any]:
    if args.tune_seeds != 1:
        raise CliError("--tune-seeds: a server's tune averages one tuning seed")
    return {
        "preset": args.preset,
        "space": list(args.params),
        "trials": args.trials,
        "seeds": args.seeds,
        "objective": args.objective,
        "validation": args.validation,
        "sampler": args.sampler,
        "sampler_seed": args.sampler_seed,
        "grid_points": args.grid_points,
        "pruner": args.pruner,
        "prune_after": args.prune_after,
        "set": list(args.assignments),
        **({"parallel": args.jobs} if args.jobs else {}),
    }


def run_remote(args: argparse.Namespace) -> int:
    """Submit, wait, print (and with `--out`, write) both tables in `--format`, shaped
    by the table arguments."""
    transport = Transport(args.server, args.token, timeout_s=60)
    query = {"format": args.format, **table_query(args)}
    try:
        tune_id = submit(transport, body_of(args))
        print(f"tune {tune_id} on {args.server}", file=sys.stderr)
        wait(transport, tune_id, None, 2.0)
        text = transport.get(f"/api/tunes/{tune_id}/tables", query).decode()
    except Refused as err:
        raise CliError(_refusal(err)) from None
    except Unreachable as err:
        raise CliError(f"--server {args.server}: {err}") from None
    if args.out is not None:
        out: Path = args.out
        out.mkdir(parents=True, exist_ok=True)
        suffix = "txt" if args.format == "text" else args.format
        (out / f"tune-{tune_id}.{suffix}").write_text(text)
    print(text)
    return 0


def _refusal(err: Refused) -> str:
    """The server's 422 as lines "field: why"."""
    if not isinstance(err.detail, list):
        return str(err)
    lines = []
    for e in err.detail:
        where = ".".join(str(p) for p in e.get("loc", [])[1:])
        lines.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
    return "; ".join(lines)
