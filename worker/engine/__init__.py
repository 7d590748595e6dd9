"""Pure simulation library: federated learning under intermittent client availability.

No database, queue or web imports: the service calls `simulate(config, sink)`.

The names below load on first use, so that importing one module of the package (the
metric catalogue, the registry) does not import the simulation and torch with it.
Importing builds and loads nothing: the components a process runs with are installed
at its start-up (`components.py`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from worker.engine.config import RunConfig
    from worker.engine.errors import ConfigError, DatasetMissing
    from worker.engine.loop import simulate
    from worker.engine.overrides import build_config
    from worker.engine.records import ClientWeights, RoundRecord, Summary
    from worker.engine.sink import ListSink, Sink

_HOMES = {
    "ClientWeights": "records",
    "ConfigError": "errors",
    "DatasetMissing": "errors",
    "ListSink": "sink",
    "RoundRecord": "records",
    "RunConfig": "config",
    "Sink": "sink",
    "Summary": "records",
    "build_config": "overrides",
    "simulate": "loop",
}

__all__ = [
    "ClientWeights",
    "ConfigError",
    "DatasetMissing",
    "ListSink",
    "RoundRecord",
    "RunConfig",
    "Sink",
    "Summary",
    "build_config",
    "simulate",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
