"""System models, one file each, declared by their `@system` decorator
(`components.builtin()` imports every module of this package): what each client's
device takes in time, and where a model gives one, its availability in seconds. The
loop's clock (`clock.py`) times a round from them (`timing.py`)."""

from __future__ import annotations

from worker.engine.system.base import (
    SystemContext,
    SystemModel,
    SystemSpec,
    build_system,
    system_spec,
)

__all__ = ["SystemContext", "SystemModel", "SystemSpec", "build_system", "system_spec"]
