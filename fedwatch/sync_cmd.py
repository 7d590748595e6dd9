"""`fedwatch sync DIR --url URL [--token T]`: upload the spool files under DIR (runs
recorded by the SDK without a server, or not fully sent)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from fedwatch.errors import CliError
from fedwatch.spool import SUFFIX, sync
from fedwatch.transport import Refused, TooLarge, Transport, Unreachable


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("sync", help="upload runs spooled by the SDK (fedwatch.client)")
    p.add_argument("directory", type=Path, help="the SDK's spool directory")
    p.add_argument("--url", required=True, help="the FedWatch server, e.g. http://host:8000")
    p.add_argument(
        "--token",
        default=os.environ.get("FEDWATCH_TOKEN"),
        help="the server's API token (default: $FEDWATCH_TOKEN)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    paths = sorted(args.directory.glob(f"*{SUFFIX}"))
    if not paths:
        raise CliError(f"no spool files ({SUFFIX}) in {args.directory}")
    transport = Transport(args.url, args.token, timeout_s=60)
    failed = 0
    for path in paths:
        try:
            run_id, rounds, stored = sync(path, transport)
        except Unreachable as err:
            raise CliError(f"{args.url} unreachable: {err}") from None
        except (Refused, TooLarge, ValueError, KeyError) as err:
            print(f"{path.name}: not uploaded: {err}")
            failed += 1
            continue
        print(f"{path.name}: run {run_id}, {rounds} rounds, {stored} new")
    return 1 if failed else 0
