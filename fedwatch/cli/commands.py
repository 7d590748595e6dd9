"""The full distribution's commands in `fedwatch` (the client's `fedwatch.command`),
through its entry point `fedwatch.commands`: one sub-command per module, each exposing
`register`."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the commands (the command line's start-up). Imports them, and installs
    the components (`components.py`) the commands run with."""
    from fedwatch.cli import (
        compare_cmd,
        import_cmd,
        plot_cmd,
        plugins_cmd,
        presets_cmd,
        reproduce_cmd,
        serve_cmd,
        simulate_cmd,
        tune_cmd,
        worker_cmd,
    )
    from worker.engine import install, installed, keep_freed_memory

    keep_freed_memory()  # every command may train; see allocator.py
    install(installed())  # the built-in ones and the plug-ins
    for module in (
        presets_cmd,
        simulate_cmd,
        serve_cmd,
        worker_cmd,
        compare_cmd,
        tune_cmd,
        plot_cmd,
        reproduce_cmd,
        import_cmd,
        plugins_cmd,
    ):
        module.register(sub)
