"""`fedwatch compare PRESET [--seeds N] [--set k=v ...] [--out DIR] [--jobs J]
[--format text|csv|md|tex] [--alpha A] [--columns C,...] [--reference METHOD]
[--label METHOD=NAME ...] [--server URL]`.

Runs the preset's comparison set (each variant × method × seed; a method is an algorithm
with the settings its paper ran it with, e.g. its learning rates) in parallel processes,
writes one JSON per run plus the table in every format (`table.txt`, `.csv`, `.md`,
`.tex`, `.json`), and prints the table in the one asked for. With `--server` every run is
also recorded into a FedWatch server as it runs (`recording.py`), the runs of one command
in one experiment.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import sys
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import Manager, get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fedwatch.cli.config_source import add_set_argument, on_this_machine
from fedwatch.cli.openmp import run_threads, threads_per_process
from fedwatch.cli.recording import Target, add_server_arguments, recorded, target_of
from fedwatch.errors import CliError
from fedwatch.read import table_params
from worker.engine import ConfigError, ListSink, RoundRecord

if TYPE_CHECKING:  # torch, scipy and the engine load once a command runs
    from tqdm import tqdm

    from worker.engine import KeptPools
    from worker.presets import Preset
    from worker.results.table import Format


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("compare", help="run a preset's comparison over seeds and tabulate it")
    p.add_argument("preset", help="a preset name (see `fedwatch presets`)")
    p.add_argument("--seeds", type=int, help="number of seeds (default: the preset's)")
    add_set_argument(p, "override a dotted config key in every run (repeatable)")
    p.add_argument("--variant", action="append", help="only this variant (repeatable)")
    p.add_argument("--out", type=Path, help="directory for the JSON files (var/compare/PRESET)")
    p.add_argument("--jobs", type=int, help="parallel processes (default: CPU count)")
    add_table_arguments(p)
    add_server_arguments(p)
    p.set_defaults(handler=run)


def add_table_arguments(p: argparse.ArgumentParser) -> None:
    from worker.results.stats import DEFAULT_ALPHA
    from worker.results.table import FORMATS

    p.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="how to print the table: aligned text, CSV, Markdown or LaTeX (booktabs); "
        "every format is written to the output directory (default: text)",
    )
    p.add_argument(
        "--alpha",
        type=alpha_level,
        default=DEFAULT_ALPHA,
        help="significance level of the tests, corrected together by Holm–Bonferroni "
        f"(default: {DEFAULT_ALPHA})",
    )
    p.add_argument(
        "--columns",
        type=column_list,
        help="comma-separated summary values to tabulate and test, in that order "
        "(default: the preset's headline values, then every compared value with data), "
        "e.g. best_test_acc,time_avg_test_acc",
    )
    p.add_argument(
        "--reference",
        metavar="GROUP",
        help="the method the others are tested against, by its name or label (default: the "
        "preset's proposed method, else its first method)",
    )
    add_label_argument(p)


def add_label_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--label",
        dest="labels",
        action="append",
        type=label_pair,
        default=[],
        metavar="GROUP=NAME",
        help="rename a group (a method, by its name or label) in the tables and figures, "
        "e.g. --label 'fedavg=FedAvg (ours)' (repeatable)",
    )


def label_pair(text: str) -> tuple[str, str]:
    group, eq, name = text.partition("=")
    if not eq or not group.strip() or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: expected GROUP=NAME")
    return group.strip(), name.strip()


def labels_of(args: argparse.Namespace) -> dict[str, str]:
    """`--label`'s pairs; CliError where a group is renamed twice."""
    out: dict[str, str] = {}
    for group, name in args.labels:
        if group in out:
            raise CliError(f"--label: {group!r} is renamed twice")
        out[group] = name
    return out


def table_query(args: argparse.Namespace) -> dict[str, str | float | None]:
    """The table arguments (`add_table_arguments`) as a server's table query, for the
    server to tabulate as this command would (`fedwatch.read.table_params`)."""
    return table_params(args.reference, args.alpha, args.columns, labels_of(args))


def column_list(text: str) -> list[str]:
    from worker.results.stats import columns_of

    names = [n.strip() for n in text.split(",") if n.strip()]
    try:
        columns_of(names)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return names


def alpha_level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{value:g} is not between 0 and 1")
    return value


@dataclass(frozen=True)
class Job:
    preset: str
    group: str
    algorithm: str
    seed: int
    assignments: tuple[str, ...]
    path: str

    @property
    def label(self) -> str:
        return " ".join(x for x in (self.group, self.algorithm, f"seed {self.seed}") if x)


def seed_list(preset_seeds: tuple[int, ...], n: int | None) -> list[int]:
    """The preset's seeds, cut or extended with the next integers to `n` seeds."""
    if n is None:
        return list(preset_seeds)
    if n < 1:
        raise CliError("--seeds: need at least one seed")
    start = max(preset_seeds) + 1
    return [*preset_seeds, *range(start, start + n)][:n]


def plan(preset: Preset, args: argparse.Namespace, out: Path) -> list[Job]:
    seeds = seed_list(preset.seeds, args.seeds)
    groups = preset.variants or {"": []}
    if args.variant:
        unknown = set(args.variant) - set(groups)
        if unknown:
            known = ", ".join(groups) or "none"
            raise CliError(f"--variant: unknown {', '.join(sorted(unknown))} (known: {known})")
        groups = {g: groups[g] for g in args.variant}
    jobs = []
    for group, extra in groups.items():
        for method in preset.compare:
            alg = method.name
            for seed in seeds:
                sets = (*extra, *method.as_overrides(), *args.assignments, f"seed={seed}")
                name = f"{group + '-' if group else ''}{alg}-seed{seed}.json"
                jobs.append(Job(preset.name, group, alg, seed, sets, str(out / name)))
    for job in jobs:  # fail fast on a bad --set or data.root, before starting any process
        try:
            on_this_machine(preset.run_config(list(job.assignments)))
        except ConfigError as err:
            raise CliError(str(err)) from None
    return jobs


class QueueSink(ListSink):
    """Keeps the records and reports finished rounds to the parent's progress bar."""

    def __init__(self, finished_rounds: Any, every: int) -> None:
        super().__init__()
        self.finished_rounds, self.every, self.pending = finished_rounds, every, 0

    def on_round(self, record: RoundRecord) -> None:
        super().on_round(record)
        self.pending += 1
        if self.pending >= self.every:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.finished_rounds.put(self.pending)
            self.pending = 0


def execute(
    job: Job,
    finished_rounds: Any,
    threads: int,
    kept_pools: KeptPools | None,
    target: Target | None,
) -> dict[str, Any]:
    """Run one job (in a worker process), write its JSON, return its summary values;
    record it into `target` as it runs."""
    from worker.engine import keep_pools_in, simulate
    from worker.presets import get_preset

    keep_pools_in(kept_pools)
    config = get_preset(job.preset).run_config(list(job.assignments))
    sink = QueueSink(finished_rounds, max(1, config.rounds // 50))
    with (
        run_threads(threads),
        recorded(sink, config, f"{job.preset} {job.label}", target) as into,
    ):
        summary = simulate(on_this_machine(config), into).to_dict()
    sink.flush()
    rounds = [r.to_dict() for r in sink.records]
    result = {
        "variant": job.group,
        "algorithm": job.algorithm,
        "config": config.model_dump(mode="json"),
        "summary": summary,
        "rounds": rounds,
    }
    Path(job.path).write_text(json.dumps(result))
    return {
        "group": job.group,
        "algorithm": job.algorithm,
        "seed": job.seed,
        "path": job.path,
        "metrics": summary,
        "config": result["config"],
    }


def run(args: argparse.Namespace) -> int:
    from worker.presets import get_preset

    try:
        preset = get_preset(args.preset)
    except ConfigError as err:
        raise CliError(str(err)) from None
    out: Path = args.out or Path("var/compare") / preset.name
    out.mkdir(parents=True, exist_ok=True)
    jobs = plan(preset, args, out)
    workers = max(1, min(args.jobs or os.cpu_count() or 1, len(jobs)))
    threads = threads_per_process(workers)
    total = sum(preset.run_config(list(j.assignments)).rounds for j in jobs)
    print(f"{preset.name}: {len(jobs)} runs on {workers} process(es) -> {out}", file=sys.stderr)
    target = target_of(args, experiment_name("compare", preset.name))
    results = run_all(jobs, workers, threads, total, preset.name, target)
    print(write_tables(preset, jobs, results, out, args))
    return 0


def write_tables(
    preset: Preset, jobs: list[Job], results: list[dict[str, Any]], out: Path, args: Any
) -> str:
    """Write the comparison table in every format into `out`; the text of the format
    `args.format` (`args.alpha`, `args.columns`, `args.reference`, `args.labels`: the
    table's level, values, reference and group names). The grouping's warnings go to stderr."""
    from fedwatch.cli.comparison import build, render_all, sections_json
    from worker.results.grouping import GroupingError
    from worker.results.table import FORMATS

    targets = [preset.run_config(list(j.assignments)).eval.target_acc for j in jobs]
    variants = list(dict.fromkeys(j.group for j in jobs))
    try:
        sections = build(
            results, preset.name, preset.method_names, variants, args.alpha, targets,
            args.columns, labels_of(args), args.reference,
        )  # fmt: skip
    except GroupingError as err:
        raise CliError(f"--{err.field.removesuffix('s')}: {err}") from None
    for section in sections:
        for warning in section.grouping.warnings:
            print(f"warning: {warning.message}", file=sys.stderr)
    texts = {fmt: render_all(sections, fmt) for fmt in FORMATS}
    for fmt, body in texts.items():
        (out / f"table.{'txt' if fmt == 'text' else fmt}").write_text(body)
    (out / "table.json").write_text(json.dumps(sections_json(preset.name, sections)))
    shown: Format = args.format
    return texts[shown]


def experiment_name(command: str, preset: str) -> str:
    """The experiment a command's runs are recorded in: one per command run."""
    return f"{preset} ({command}, {time.strftime('%Y-%m-%d %H:%M:%S')})"


def run_all(
    jobs: list[Job],
    workers: int,
    threads: int,
    total: int,
    name: str,
    target: Target | None = None,
) -> list[dict[str, Any]]:
    from db.settings import Settings
    from fedwatch.cli.progress import progress_bar
    from worker.kept_pools import open_kept_pools

    bar = progress_bar(total, f"compare {name}")
    kept_pools = open_kept_pools(Settings())  # the runs share each dataset, loaded once
    try:
        with Manager() as manager:
            finished_rounds = manager.Queue()
            with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
                futures = {
                    pool.submit(execute, job, finished_rounds, threads, kept_pools, target): job
                    for job in jobs
                }
                results = wait(futures, finished_rounds, bar)
    finally:
        bar.close()
        if kept_pools is not None:
            kept_pools.close()
    return results


def wait(
    futures: dict[Future[dict[str, Any]], Job], finished_rounds: Any, bar: tqdm
) -> list[dict[str, Any]]:
    done = 0
    while done < len(futures):
        with contextlib.suppress(queue.Empty):
            bar.update(finished_rounds.get(timeout=0.2))
        done = sum(f.done() for f in futures)
        bar.set_postfix_str(f"{done}/{len(futures)} runs", refresh=False)
    results = []
    for future, job in futures.items():
        try:
            results.append(future.result())
        except ConfigError as err:
            raise CliError(f"{job.label}: {err}") from None
    while not finished_rounds.empty():
        bar.update(finished_rounds.get())
    return results
