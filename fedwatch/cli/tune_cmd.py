"""`fedwatch tune PRESET --param KEY=KIND:... [--param ...] [--trials N] [--seeds S]
[--objective NAME] [--validation F] [--sampler tpe|random|grid] [--pruner
median|hyperband|none] [--set k=v ...] [--out DIR] [--format text|csv|md|tex]
[--server URL [--token T]]`.

A tuned comparison of the preset's methods (`worker.tune`): each method's study (Optuna,
stored in `OUT/tune.db`, resumed where it exists) gets the same budget of trials on the
validation split; each method's best settings then run on S fresh seeds on the whole
training data, and are tested on the test set. Writes the comparison table
(`table.*`, its caption stating the protocol), the chosen settings (`settings.*`),
`trials.json` and one JSON per final run; prints both tables in the format asked for.
With `--server` the tune is submitted to that server instead (`tune_remote.py`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fedwatch.cli.compare_cmd import Job, add_table_arguments, labels_of, run_all
from fedwatch.cli.config_source import add_set_argument
from fedwatch.cli.openmp import threads_per_process
from fedwatch.cli.tune_remote import add_arguments as add_remote_arguments
from fedwatch.cli.tune_remote import run_remote
from fedwatch.errors import CliError
from worker.engine import ConfigError

if TYPE_CHECKING:  # torch, optuna and the engine load once a command runs
    from worker.presets import Method, Preset
    from worker.tune.protocol import Chosen
    from worker.tune.study import ConfigOf, TuneSpec

DEFAULT_OBJECTIVE = "final_val_acc"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("tune", help="tune each of a preset's methods equally, then compare")
    p.add_argument("preset", help="a preset name (see `fedwatch presets`)")
    p.add_argument(
        "--param",
        dest="params",
        action="append",
        required=True,
        metavar="KEY=KIND:...",
        help="a searched config key: log:LOW:HIGH, linear:LOW:HIGH, int:LOW:HIGH or "
        "choice:A,B,... (repeatable), e.g. client.lr=log:1e-3:1",
    )
    p.add_argument("--trials", type=int, default=20, help="trials per method (default: 20)")
    p.add_argument("--seeds", type=int, default=3, help="fresh final seeds (default: 3)")
    p.add_argument("--tune-seeds", type=int, default=1, help="seeds a trial averages (1)")
    p.add_argument(
        "--objective",
        default=DEFAULT_OBJECTIVE,
        help=f"a validation summary value to optimise (default: {DEFAULT_OBJECTIVE})",
    )
    p.add_argument(
        "--validation",
        type=float,
        default=0.2,
        help="share of each client's training data held out for tuning (default: 0.2)",
    )
    p.add_argument("--sampler", choices=("tpe", "random", "grid"), default="tpe")
    p.add_argument("--sampler-seed", type=int, default=0, help="every method's (default: 0)")
    p.add_argument("--grid-points", type=int, default=5, help="grid values per range (5)")
    p.add_argument("--pruner", choices=("median", "hyperband", "none"), default="median")
    p.add_argument(
        "--prune-after", type=int, default=5, help="finished trials before the median pruner acts"
    )
    add_set_argument(p, "override a dotted config key in every run (repeatable)")
    p.add_argument("--out", type=Path, help="directory of the study and tables (var/tune/PRESET)")
    p.add_argument(
        "--jobs",
        type=int,
        help="parallel processes of the final runs (with --server: trials of a method at once)",
    )
    add_table_arguments(p)
    add_remote_arguments(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from worker.presets import get_preset

    if args.server:
        return run_remote(args)
    started = time.perf_counter()
    try:
        preset = get_preset(args.preset)
        spec = tune_spec(args)
        check_methods(preset, spec, args)
    except ConfigError as err:
        raise CliError(str(err)) from None
    out: Path = args.out or Path("var/tune") / preset.name
    out.mkdir(parents=True, exist_ok=True)
    storage = f"sqlite:///{(out / 'tune.db').resolve()}"
    chosen = [tune_one(preset, m, spec, args, storage) for m in preset.compare]
    finals = final_jobs(preset, chosen, spec, args, out)
    results = run_finals(finals, preset.name, args.jobs)
    text = write_all(preset, spec, chosen, finals, results, out, args)
    print(text)
    print(f"tune took {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


def tune_spec(args: argparse.Namespace) -> TuneSpec:
    """The shared study settings; ConfigError naming the option or key at fault."""
    from worker.tune.objective import objective_of
    from worker.tune.space import parse_dimension
    from worker.tune.study import TuneSpec

    for name, value, low in (("trials", args.trials, 1), ("seeds", args.seeds, 1)):
        if value < low:
            raise ConfigError(f"--{name}: need at least {low}, got {value}")
    if args.tune_seeds < 1 or args.grid_points < 2 or args.prune_after < 0:
        raise ConfigError("--tune-seeds ≥ 1, --grid-points ≥ 2 and --prune-after ≥ 0")
    if not 0 < args.validation < 1:
        raise ConfigError(f"eval.validation: a tune needs a share in (0, 1), got {args.validation}")
    dims = tuple(parse_dimension(text) for text in args.params)
    keys = [d.key for d in dims]
    twice = {k for k in keys if keys.count(k) > 1}
    if twice:
        raise ConfigError(f"{', '.join(sorted(twice))}: searched twice")
    if {"seed", "eval.validation"} & set(keys):
        raise ConfigError("seed and eval.validation are set by the tune, not searched")
    return TuneSpec(
        space=dims,
        trials=args.trials,
        objective=objective_of(args.objective),
        seeds=tuple(range(args.tune_seeds)),
        sampler=args.sampler,
        sampler_seed=args.sampler_seed,
        grid_points=args.grid_points,
        pruner=args.pruner,
        prune_after=args.prune_after,
    )


def config_of(preset: Preset, method: Method, args: argparse.Namespace) -> ConfigOf:
    base = [*method.as_overrides(), *args.assignments, f"eval.validation={args.validation}"]
    return lambda extra: preset.run_config([*base, *extra])


def check_methods(preset: Preset, spec: TuneSpec, args: argparse.Namespace) -> None:
    from worker.tune.checks import check_methods as check

    check({m.name: config_of(preset, m, args) for m in preset.compare}, spec)


def tune_one(
    preset: Preset, method: Method, spec: TuneSpec, args: argparse.Namespace, storage: str
) -> Chosen:
    import optuna

    from worker.tune.protocol import Chosen
    from worker.tune.study import best_params, tune_method

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    print(f"tuning {method.name}: {spec.trials} trials", file=sys.stderr)
    study = tune_method(spec, config_of(preset, method, args), storage, study_key(preset, method))
    states = [t.state for t in study.get_trials(deepcopy=False)]
    params = best_params(study)
    return Chosen(
        method.name,
        params,
        None if params is None else float(study.best_value),
        states.count(optuna.trial.TrialState.COMPLETE),
        states.count(optuna.trial.TrialState.PRUNED),
        states.count(optuna.trial.TrialState.FAIL),
    )


def study_key(preset: Preset, method: Method) -> str:
    return f"{preset.name}:{method.name}"


def final_jobs(
    preset: Preset, chosen: list[Chosen], spec: TuneSpec, args: argparse.Namespace, out: Path
) -> list[Job]:
    """Each tuned method's best settings on `--seeds` seeds after the tuning ones, on the
    whole training data (no validation split); a method with no completed trial has none."""
    from worker.tune.space import assignments

    first = max(spec.seeds) + 1
    methods = {m.name: m for m in preset.compare}
    jobs = []
    for c in chosen:
        if c.params is None:
            continue
        method = methods[c.method]
        for seed in range(first, first + args.seeds):
            sets = (
                *method.as_overrides(), *args.assignments, *assignments(dict(c.params)),
                "eval.validation=0", f"seed={seed}",
            )  # fmt: skip
            path = str(out / f"{c.method}-seed{seed}.json")
            jobs.append(Job(preset.name, "", c.method, seed, sets, path))
    return jobs


def run_finals(jobs: list[Job], name: str, processes: int | None) -> list[dict[str, Any]]:
    from worker.presets import get_preset

    if not jobs:
        raise CliError("no method completed a trial: nothing to compare")
    preset = get_preset(name)
    workers = max(1, min(processes or os.cpu_count() or 1, len(jobs)))
    total = sum(preset.run_config(list(j.assignments)).rounds for j in jobs)
    return run_all(jobs, workers, threads_per_process(workers), total, f"{name} (final)")


def write_all(
    preset: Preset,
    spec: TuneSpec,
    chosen: list[Chosen],
    jobs: list[Job],
    results: list[dict[str, Any]],
    out: Path,
    args: argparse.Namespace,
) -> str:
    """Both tables in every format into `out`, and `trials.json`; the text of
    `args.format`: the comparison, then the chosen settings."""
    from fedwatch.cli.comparison import build
    from worker.results.grouping import GroupingError
    from worker.results.table import FORMATS, render
    from worker.tune.protocol import protocol, settings_table, shortfalls, tune_notes

    targets = [preset.run_config(list(j.assignments)).eval.target_acc for j in jobs]
    order = [c.method for c in chosen if c.params is not None]
    try:
        (section,) = build(
            results, preset.name, order, [""], args.alpha, targets, args.columns,
            labels_of(args), args.reference,
        )  # fmt: skip
    except GroupingError as err:
        raise CliError(f"--{err.field.removesuffix('s')}: {err}") from None
    sentence = protocol(spec, args.validation, args.seeds)
    notes = tune_notes(
        section.notes, sentence, shortfalls(chosen, spec.trials), section.grouping.labels
    )
    keys = [d.key for d in spec.space]
    texts = {}
    for fmt in FORMATS:
        suffix = "txt" if fmt == "text" else fmt
        table = render(section.shown, fmt, section.targets, notes)
        settings = settings_table(chosen, keys, fmt)
        (out / f"table.{suffix}").write_text(table)
        (out / f"settings.{suffix}").write_text(settings)
        texts[fmt] = f"{table}\n{settings}"
    (out / "trials.json").write_text(json.dumps(trials_json(chosen, spec, sentence), indent=1))
    return texts[args.format]


def trials_json(chosen: list[Chosen], spec: TuneSpec, sentence: str) -> dict[str, Any]:
    return {
        "protocol": sentence,
        "objective": spec.objective.spec.name,
        "budget": spec.trials,
        "methods": [
            {
                "method": c.method,
                "params": c.params,
                "best_value": c.value,
                "complete": c.complete,
                "pruned": c.pruned,
                "failed": c.failed,
            }
            for c in chosen
        ],
    }
