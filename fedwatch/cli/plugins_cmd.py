"""`fedwatch plugins [--json]`: the components installed distributions registered
through entry points, where each comes from, and the entry points that were skipped."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fedwatch.plugins import PluginReport


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("plugins", help="list the loaded plug-ins and those that failed")
    p.add_argument("--json", action="store_true", help="print a JSON object instead")
    p.set_defaults(handler=run)


def format_report(found: PluginReport) -> str:
    lines = ["loaded:"]
    lines += [
        f"  {p.group}  {p.name}  {p.source}  ({p.distribution or 'no distribution'})"
        for p in found.loaded
    ] or ["  none"]
    lines.append("failed:")
    lines += [
        f"  {f.entry_point}  ({f.distribution or 'no distribution'}): {f.reason}"
        for f in found.failed
    ] or ["  none"]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from fedwatch.plugins import report

    found = report()
    if args.json:
        out = {
            "loaded": [asdict(p) for p in found.loaded],
            "failed": [asdict(f) for f in found.failed],
        }
        print(json.dumps(out, indent=2))
    else:
        print(format_report(found))
    return 0
