"""`fedwatch simulate PRESET|CONFIG.json [--set k=v ...] [--out FILE.json]
[--model FILE.safetensors] [--estimate] [--server URL]`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fedwatch.cli.config_source import add_set_argument, load_config, on_this_machine
from fedwatch.cli.openmp import run_threads, threads_per_process
from fedwatch.cli.recording import add_server_arguments, recorded, target_of
from fedwatch.errors import CliError

if TYPE_CHECKING:
    from fedwatch.cli.progress import ProgressSink
    from worker.engine import RunConfig, Summary


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("simulate", help="run one configuration locally")
    p.add_argument("source", help="a preset name (see `fedwatch presets`) or a config JSON file")
    add_set_argument(p, "override a dotted config key, e.g. --set algorithm.name=mifa (repeatable)")
    p.add_argument("--out", type=Path, help="write config, summary and rounds to this JSON file")
    p.add_argument(
        "--model",
        type=Path,
        help="write the final global model to this safetensors file (load it with "
        "worker.engine.artifact.load_module, or any safetensors reader)",
    )
    p.add_argument(
        "--estimate",
        action="store_true",
        help="print the run's estimated memory and work (what the service checks) and exit",
    )
    add_server_arguments(p)
    p.set_defaults(handler=run, quick_exit=True)


def run(args: argparse.Namespace) -> int:
    from fedwatch.cli.progress import ProgressSink
    from worker.engine import ConfigError, estimate, simulate

    config = load_config(args.source, args.assignments)
    local = on_this_machine(config)
    if args.estimate:
        try:  # this command keeps every round's record, the last checkpoint and the next
            print(estimate(local, held_rounds=config.rounds, held_states=2).describe())
        except ConfigError as err:
            raise CliError(str(err)) from None
        return 0
    sink = ProgressSink(config.rounds, f"{config.name} [{config.algorithm.name}]")
    try:
        with (
            run_threads(threads_per_process(1)),
            recorded(sink, config, config.name, target_of(args)) as into,
        ):
            summary = simulate(local, into)
    except ConfigError as err:
        raise CliError(str(err)) from None
    finally:
        sink.close()
    result = run_result(config, summary, sink)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result))
        print(f"wrote {args.out}", file=sys.stderr)
    if args.model is not None and sink.model is not None:
        args.model.parent.mkdir(parents=True, exist_ok=True)
        args.model.write_bytes(sink.model.to_bytes())
        print(f"wrote {args.model}", file=sys.stderr)
    print(json.dumps(result["summary"], indent=2))
    return 0


def run_result(config: RunConfig, summary: Summary, sink: ProgressSink) -> dict[str, Any]:
    return {
        "config": config.model_dump(mode="json"),
        "summary": summary.to_dict(),
        "rounds": [r.to_dict() for r in sink.records],
    }
