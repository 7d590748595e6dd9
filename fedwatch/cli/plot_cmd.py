"""`fedwatch plot DIR | --url URL (--runs IDS | --experiment ID) [--metric M]
[--x round|wall_s|sim_time_s] [--band std|ci|none] [--width column|full] [--log] [--lines]
[--label GROUP=NAME ...] [--out FILE]`.

A figure for a paper (PDF, SVG or PNG, by the suffix of `--out`) of a comparison's
curves: each group's mean with its band. The runs come from a directory written by
`fedwatch compare` or `fedwatch reproduce` (a group per variant and method), or from a
FedWatch server (its `GET /api/compare/figure`, grouped by algorithm or, for an
experiment, by its cells). Either way the groups and their names in the legend are
`worker.results.grouping`'s, renamed with `--label`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fedwatch.cli.compare_cmd import add_label_argument, labels_of
from fedwatch.errors import CliError
from fedwatch.read import labels_param
from fedwatch.transport import Refused, TooLarge, Transport, Unreachable

if TYPE_CHECKING:
    from worker.results.curves import RunCurve
    from worker.results.figures import FigureFormat
    from worker.results.grouping import RunRecord

SUFFIXES: tuple[FigureFormat, ...] = ("pdf", "svg", "png")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("plot", help="draw a comparison's curves as a PDF, SVG or PNG figure")
    p.add_argument(
        "directory", type=Path, nargs="?", help="a `fedwatch compare` or `reproduce` output"
    )
    p.add_argument("--url", help="a FedWatch server instead of a directory")
    p.add_argument("--runs", help="with --url: comma-separated run ids")
    p.add_argument("--experiment", type=int, help="with --url: an experiment's runs")
    p.add_argument(
        "--token",
        default=os.environ.get("FEDWATCH_TOKEN"),
        help="the server's API token (default: $FEDWATCH_TOKEN)",
    )
    p.add_argument("--metric", default="test_acc", help="the round metric (default: test_acc)")
    p.add_argument(
        "--x",
        choices=("round", "wall_s", "sim_time_s"),
        default="round",
        help="the x axis: round, wall time, or simulated time (runs with a system model)",
    )
    p.add_argument(
        "--band",
        choices=("std", "ci", "none"),
        default="std",
        help="around each group's mean: ± std, the 95 %% CI of the mean, or none",
    )
    p.add_argument(
        "--width",
        choices=("column", "full"),
        default="column",
        help="a paper's column (3.5 in, the default) or full text width (7 in)",
    )
    p.add_argument("--log", action="store_true", help="a logarithmic y axis")
    p.add_argument("--lines", action="store_true", help="each run's curve too, drawn thin")
    p.add_argument(
        "--out", type=Path, help="the figure; its suffix picks the format (default: curves.pdf)"
    )
    add_label_argument(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    out: Path = args.out or (args.directory or Path(".")) / f"curves-{args.metric}.pdf"
    suffix = out.suffix.lstrip(".").lower()
    fmt = next((f for f in SUFFIXES if f == suffix), None)
    if fmt is None:
        raise CliError(f"--out: {out.name}: the suffix must be one of .pdf, .svg, .png")
    if (args.directory is None) == (args.url is None):
        raise CliError("give a directory written by `fedwatch compare`, or --url")
    body = from_server(args, fmt) if args.url else from_directory(args, fmt)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(body)
    print(f"wrote {out}", file=sys.stderr)
    return 0


def from_server(args: argparse.Namespace, fmt: FigureFormat) -> bytes:
    transport = Transport(args.url, args.token, timeout_s=120)
    labels = labels_of(args)
    try:
        ids, group_by = args.runs, "algorithm"
        if args.experiment is not None:
            experiment = transport.get_json(f"/api/experiments/{args.experiment}")
            ids, group_by = ",".join(map(str, experiment["run_ids"])), "experiment_cell"
        if not ids:
            raise CliError("--url needs --runs or --experiment (with runs)")
        params = {"runs": ids, "metric": args.metric, "x": args.x, "band": args.band,
                  "width": args.width, "log": args.log, "lines": args.lines, "group_by": group_by,
                  "labels": labels_param(labels) if labels else None}  # fmt: skip
        return transport.get(f"/api/compare/figure.{fmt}", params)
    except Unreachable as err:
        raise CliError(f"{args.url} unreachable: {err}") from None
    except (Refused, TooLarge) as err:
        raise CliError(str(err)) from None


def from_directory(args: argparse.Namespace, fmt: FigureFormat) -> bytes:
    from worker.engine import current, metrics
    from worker.results import figures
    from worker.results.curves import X_LABELS, group_curve
    from worker.results.grouping import GroupingError, group_runs, vocabulary_of

    curves, records = read_curves(args.directory, args.metric)
    if not any(len(c.rounds) for c in curves):
        raise CliError(f"{args.directory}: no run recorded {args.metric}")
    try:
        grouping = group_runs(
            records, vocabulary_of(current()), "experiment_cell", labels=labels_of(args)
        )
    except GroupingError as err:
        raise CliError(f"--label: {err}") from None
    for warning in grouping.warnings:
        print(f"warning: {warning.message}", file=sys.stderr)
    y = figures.Axis.of(metrics.by_name().get(args.metric), args.metric, args.log)
    groups = [
        group_curve(g.label, [curves[i] for i in g.runs], args.x, 2000, y.domain)
        for g in grouping.groups
    ]
    return figures.compare_figure(
        groups, y, X_LABELS[args.x], band=args.band, width=args.width, fmt=fmt,
        runs=[curves[i] for i in grouping.kept_runs] if args.lines else (), x=args.x,
    )  # fmt: skip


def read_curves(directory: Path, metric: str) -> tuple[list[RunCurve], list[RunRecord]]:
    """The runs of a `fedwatch compare` or `reproduce` directory, and their records for
    the grouping (a cell per variant and method), in the order of the directory's table
    (its files' where it has none): run i is file i of that order."""
    import numpy as np

    from worker.results.curves import RunCurve
    from worker.results.grouping import RunRecord

    paths = sorted(directory.glob("*-seed*.json"))
    if not paths:
        raise CliError(f"{directory}: no run files (*-seed*.json) from `fedwatch compare`")
    order = table_order(directory)
    loaded: list[dict[str, Any]] = [json.loads(p.read_text()) for p in paths]

    def rank(i: int) -> int:
        run = loaded[i]
        method = run.get("algorithm") or run["config"]["algorithm"]["name"]
        return order.get(" ".join(x for x in (run.get("variant", ""), method) if x), len(paths))

    out, records = [], []
    for i, j in enumerate(sorted(range(len(paths)), key=rank)):
        path, record = paths[j], loaded[j]
        config = record.get("config") or {}
        method = record.get("algorithm") or config["algorithm"]["name"]
        algorithm = (config.get("algorithm") or {}).get("name") or method
        seed = config.get("seed", int(path.stem.rpartition("-seed")[2] or 0))
        records.append(
            RunRecord(i, path.stem, algorithm, int(seed), config, float(i), cell=method,
                      variant=record.get("variant", ""))
        )  # fmt: skip
        rows = [r for r in record["rounds"] if r.get(metric) is not None]
        clocked = all("sim_time_s" in r for r in rows)
        out.append(
            RunCurve(
                id=i,
                name=path.stem,
                group=records[-1].cell or "",
                rounds=np.array([r["round"] for r in rows], dtype=np.int64),
                y=np.array([r[metric] for r in rows], dtype=np.float64),
                wall_s=np.array([r["wall_s"] for r in rows], dtype=np.float64),
                sim_time_s=np.array([r["sim_time_s"] for r in rows] if clocked else [], float),
            )
        )
    return out, records


def table_order(directory: Path) -> dict[str, int]:
    """The groups in the order of the directory's table (`fedwatch compare`'s
    `table.json`: the preset's methods, variant by variant); empty without one."""
    path = directory / "table.json"
    if not path.exists():
        return {}
    variants = json.loads(path.read_text()).get("variants", [])
    names = [" ".join(x for x in (v["variant"], row["group"]) if x)
             for v in variants for row in v["rows"]]  # fmt: skip
    return {name: i for i, name in enumerate(names)}
