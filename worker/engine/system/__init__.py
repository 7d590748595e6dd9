"""System models, one file each, registered by their `@system` decorator (every module
of this package is imported here): what each client's device takes in time, and where
a model gives one, its availability in seconds. The loop's clock (`clock.py`) times a
round from them (`timing.py`)."""

from __future__ import annotations

import importlib
import pkgutil

from worker.engine.system.base import SystemFacts, SystemModel, build_system

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["SystemFacts", "SystemModel", "build_system"]
