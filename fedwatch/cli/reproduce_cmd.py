"""`fedwatch reproduce PRESET [--seeds N] [--set k=v ...] [--out DIR] [--jobs J]
[--server URL]`.

Runs a paper preset's comparison set over the paper's seeds (as `fedwatch compare`),
then writes the reproduction report (`worker/reproduction/`): `report.md` with the
figures of FedWatch, of the authors' code where reference runs are bundled and of the
paper, the mean curves as `curves.svg`, `curves.pdf` and `curves.png` (matplotlib), and
`report.json`, and prints the Markdown. With `--server` the runs are recorded into a
FedWatch server as they run (as `fedwatch compare`'s).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from fedwatch.cli.compare_cmd import Job, experiment_name, plan, run_all
from fedwatch.cli.config_source import add_set_argument
from fedwatch.cli.openmp import threads_per_process
from fedwatch.cli.recording import add_server_arguments, target_of
from fedwatch.errors import CliError
from worker.engine import ConfigError

if TYPE_CHECKING:  # the engine, torch and scipy load once the command runs
    from worker.presets import Preset
    from worker.reproduction.figures import Curve


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "reproduce", help="run a paper preset's comparison and report it against the paper"
    )
    p.add_argument("preset", help="a preset name (see `fedwatch presets`)")
    p.add_argument("--seeds", type=int, help="number of seeds (default: the paper's)")
    add_set_argument(p, "override a dotted config key in every run (repeatable)")
    p.add_argument("--out", type=Path, help="directory for the report (var/reproduce/PRESET)")
    p.add_argument("--jobs", type=int, help="parallel processes (default: CPU count)")
    p.add_argument("--variant", help="the preset's variant to reproduce (default: its first)")
    p.add_argument(
        "--official-draws",
        action="store_true",
        help="replay the availability each reference run of the authors' code drew (same "
        "method and seed): run-for-run comparison instead of FedWatch's own draws",
    )
    add_server_arguments(p)
    p.set_defaults(handler=run)


def official(preset: Preset, job: Job) -> list[str]:
    """The assignments replaying the availability of the reference run of `job`."""
    from worker.reproduction.references import reference

    ref = reference(preset.name)
    if ref is None:
        raise CliError(f"--official-draws: {preset.name} has no reference runs")
    runs = {r.seed: r for r in ref.runs.get(job.algorithm, [])}
    if runs and not any(r.rounds for r in runs.values()):
        raise CliError(
            f"--official-draws: the official {job.algorithm} runs record no draws "
            f"({preset.name}'s availability is deterministic: FedWatch draws the same)"
        )
    if job.seed not in runs:
        seeds = ", ".join(map(str, sorted(runs))) or "none"
        raise CliError(
            f"--official-draws: no official {job.algorithm} run with seed {job.seed} "
            f"(official seeds: {seeds})"
        )
    n_clients = preset.run_config(list(job.assignments)).data.n_clients
    return runs[job.seed].replay(n_clients)


def run(args: argparse.Namespace) -> int:
    from worker.presets import get_preset
    from worker.reproduction.figures import run_curve
    from worker.reproduction.report import build, markdown

    try:
        preset = get_preset(args.preset)
    except ConfigError as err:
        raise CliError(str(err)) from None
    if preset.variants:
        args.variant = [args.variant or next(iter(preset.variants))]
    elif args.variant:
        raise CliError(f"--variant: {preset.name} has no variants")
    out: Path = args.out or Path("var/reproduce") / preset.name
    out.mkdir(parents=True, exist_ok=True)
    jobs = plan(preset, args, out)
    if args.official_draws:
        jobs = [replace(j, assignments=(*j.assignments, *official(preset, j))) for j in jobs]
    try:
        preset.check_data(list(jobs[0].assignments))
    except ConfigError as err:
        raise CliError(f"{preset.name}: {err}") from None
    workers = max(1, min(args.jobs or os.cpu_count() or 1, len(jobs)))
    threads = threads_per_process(workers)
    total = sum(preset.run_config(list(j.assignments)).rounds for j in jobs)
    print(f"{preset.name}: {len(jobs)} runs on {workers} process(es) -> {out}", file=sys.stderr)
    target = target_of(args, experiment_name("reproduce", preset.name))
    results = run_all(jobs, workers, threads, total, preset.name, target)
    curves: dict[str, list[Curve]] = {}
    for result in results:
        record = json.loads(Path(result["path"]).read_text())
        rounds = [(r["round"], r) for r in record["rounds"]]
        curves.setdefault(result["algorithm"], []).append(run_curve(result["seed"], rounds))
    length = preset.run_config(list(jobs[0].assignments)).rounds
    report = build(
        preset, curves, draws="official" if args.official_draws else "own", rounds=length
    )
    text = markdown(report, plot="curves.svg")
    (out / "report.md").write_text(text)
    for fmt in ("svg", "pdf", "png"):
        (out / f"curves.{fmt}").write_bytes(report.figure(fmt))
    (out / "report.json").write_text(json.dumps(report.to_json()))
    print(text)
    return 0
