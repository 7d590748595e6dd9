"""Turn `PRESET|CONFIG.json` plus `--set` assignments into a validated `RunConfig`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from fedwatch.errors import CliError

if TYPE_CHECKING:
    from worker.engine import RunConfig


def add_set_argument(parser: argparse.ArgumentParser, help_text: str) -> None:
    """The repeatable `--set dotted.key=value` option, collected in `args.assignments`."""
    parser.add_argument(
        "--set",
        dest="assignments",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=help_text,
    )


def on_this_machine(config: RunConfig) -> RunConfig:
    """`config` with `data.root` resolved as a server resolves it (`root_folder`), under
    this machine's data root (`FEDWATCH_DATA_ROOT`, default `data`): the CLI and the
    server take the same values. Downloads stay the user's to ask for. The dataset's
    files are checked as a server checks them (`check_dataset`) before anything is
    recorded."""
    from db.settings import Settings
    from worker.data_root import reading, root_folder
    from worker.engine import ConfigError, check_dataset

    try:
        local = reading(config, root_folder(config.data.root, Settings()))
    except ConfigError as err:
        raise CliError(f"{err} (FEDWATCH_DATA_ROOT sets it)") from None
    try:
        check_dataset(local.data)
    except ConfigError as err:
        raise CliError(str(err)) from None
    return local


def load_config(source: str, assignments: list[str]) -> RunConfig:
    from worker.engine import ConfigError, build_config  # torch: only once a run needs it
    from worker.presets import PRESETS

    try:
        if source in PRESETS:
            return PRESETS[source].run_config(assignments)
        path = Path(source)
        if not path.is_file():
            known = ", ".join(PRESETS)
            raise CliError(f"{source!r} is neither a preset ({known}) nor a config file")
        try:
            base = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            raise CliError(f"{source}: invalid JSON at line {err.lineno}: {err.msg}") from None
        if not isinstance(base, dict):
            raise CliError(f"{source}: expected a JSON object")
        return build_config(base, assignments)
    except ConfigError as err:
        raise CliError(str(err)) from None
