"""`fedwatch presets`: one line per paper setup."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("presets", help="list the paper presets")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from worker.presets import PRESETS

    width = max(len(name) for name in PRESETS)
    for name, preset in PRESETS.items():
        print(f"{name:<{width}}  {preset.description}")
        if (need := preset.needs()) is not None:
            print(f"{'':<{width}}  needs {need}")
        if preset.published:
            print(f"{'':<{width}}  published: {preset.published_text()}")
            print(f"{'':<{width}}  source: {preset.source or preset.paper}")
        if preset.differs:
            print(f"{'':<{width}}  differs: {preset.differs}")
    return 0
