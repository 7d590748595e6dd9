"""Pure simulation library: federated learning under intermittent client availability.

No database, queue or web imports: the service calls `simulate(config, sink)`.

This module is the engine's public surface: what the service (`api/`, `db/`, the workers
outside the engine, `fedwatch/`) imports from the engine, in groups:

- Running a simulation: the loop, what it reports through, what it writes, and the
  process settings a run's process makes first: `simulate`, `Sink`, `ListSink`,
  `RoundRecord`, `Summary`, `ClientWeights`, `ClientTimeline`, `ModelFile`,
  `governed_threads`, `keep_freed_memory`.
- Configs: the class, building one from dotted assignments, and the errors of both:
  `RunConfig`, `MAX_SEED`, `build_config`, `set_path`, `ConfigError`, `DatasetMissing`,
  `remedy`.
- Components: those a process runs with (installed at its start-up), their registries,
  and the config class built from them: `Components`, `current`, `install`, `installed`,
  `builtin_modules`, `run_config_for`, `section_class`.
- Data: checking a dataset's files before a run, the clients' data and a partition's
  view, the pools a server keeps: `check_dataset`, `load_data`, `partition_view`,
  `MAX_SHOWN`, `EXPECTED_FILES`, `missing_files`, `require_files`, `LEAF_DATASETS`,
  `KeptPools`, `keep_pools_in`, `default_parent`.
- Paths a config names: their limits and the checks that keep them inside a folder:
  `MAX_PATH_CHARS`, `inside`, `is_dir`, `is_file`, `shown`, `unnamable`.
- Summaries: a run's summary from its series, the values it reads, and the metric
  catalogue's entries: `summarise`, `summary_inputs`, `LAST_VALUES`, `std_second_half`,
  `scaled_mean`, `scaled_std`, `binary_exponent`, `MetricSpec`, `UNIT_INTERVAL`.
- Estimates before a run: its memory and work, and its system model, built where the
  service checks it: `estimate`, `Estimate`, `format_bytes`, `format_flops`, `largest`,
  `SystemSpec`, `system_spec`.
- Privacy: whether a run's clients' ε is amplified by their availability, and the
  histogram of their ε (which imports dp-accounting, a second's import, on first use):
  `AMPLIFIED`, `amplification`, `epsilon_histogram`.

Besides these, the service reads a few modules as namespaces (`tests/test_layering.py`
lists them, and why). The names load on first use, so that importing one module of the
package (the metric catalogue, the registry) does not import the simulation and torch
with it. Importing builds and loads nothing: the components a process runs with are
installed at its start-up (`components.py`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from worker.engine.allocator import keep_freed_memory
    from worker.engine.artifact import ModelFile
    from worker.engine.components import builtin_modules, current, install, installed
    from worker.engine.config import MAX_SEED, RunConfig, run_config_for, section_class
    from worker.engine.data import check_dataset, load_data
    from worker.engine.data.kept_pools import KeptPools, default_parent, keep_pools_in
    from worker.engine.data.leaf_datasets import LEAF_DATASETS
    from worker.engine.data.view import MAX_SHOWN, partition_view
    from worker.engine.data.vision import EXPECTED_FILES, missing_files, require_files
    from worker.engine.errors import ConfigError, DatasetMissing, remedy
    from worker.engine.loop import simulate
    from worker.engine.metrics import UNIT_INTERVAL, MetricSpec
    from worker.engine.overrides import build_config, set_path
    from worker.engine.paths import MAX_PATH_CHARS, inside, is_dir, is_file, shown, unnamable
    from worker.engine.privacy.client_epsilons import epsilon_histogram
    from worker.engine.privacy.run import AMPLIFIED, amplification
    from worker.engine.records import ClientTimeline, ClientWeights, RoundRecord, Summary
    from worker.engine.registry import Components
    from worker.engine.resources import Estimate, estimate, format_bytes, format_flops, largest
    from worker.engine.scaled import binary_exponent, scaled_mean, scaled_std
    from worker.engine.sink import ListSink, Sink
    from worker.engine.summary import LAST_VALUES, std_second_half, summarise, summary_inputs
    from worker.engine.system import SystemSpec, system_spec
    from worker.engine.threads import governed_threads

_HOMES = {
    # Running a simulation
    "simulate": "loop",
    "Sink": "sink",
    "ListSink": "sink",
    "RoundRecord": "records",
    "Summary": "records",
    "ClientWeights": "records",
    "ClientTimeline": "records",
    "ModelFile": "artifact",
    "governed_threads": "threads",
    "keep_freed_memory": "allocator",
    # Configs
    "RunConfig": "config",
    "MAX_SEED": "config",
    "build_config": "overrides",
    "set_path": "overrides",
    "ConfigError": "errors",
    "DatasetMissing": "errors",
    "remedy": "errors",
    # Components
    "Components": "registry",
    "current": "components",
    "install": "components",
    "installed": "components",
    "builtin_modules": "components",
    "run_config_for": "config",
    "section_class": "config",
    # Data
    "check_dataset": "data",
    "load_data": "data",
    "partition_view": "data.view",
    "MAX_SHOWN": "data.view",
    "EXPECTED_FILES": "data.vision",
    "missing_files": "data.vision",
    "require_files": "data.vision",
    "LEAF_DATASETS": "data.leaf_datasets",
    "KeptPools": "data.kept_pools",
    "keep_pools_in": "data.kept_pools",
    "default_parent": "data.kept_pools",
    # Paths a config names
    "MAX_PATH_CHARS": "paths",
    "inside": "paths",
    "is_dir": "paths",
    "is_file": "paths",
    "shown": "paths",
    "unnamable": "paths",
    # Summaries
    "summarise": "summary",
    "summary_inputs": "summary",
    "LAST_VALUES": "summary",
    "std_second_half": "summary",
    "scaled_mean": "scaled",
    "scaled_std": "scaled",
    "binary_exponent": "scaled",
    "MetricSpec": "metrics",
    "UNIT_INTERVAL": "metrics",
    # Estimates before a run
    "estimate": "resources",
    "Estimate": "resources",
    "format_bytes": "resources",
    "format_flops": "resources",
    "largest": "resources",
    "SystemSpec": "system",
    "system_spec": "system",
    # Privacy
    "AMPLIFIED": "privacy.run",
    "amplification": "privacy.run",
    "epsilon_histogram": "privacy.client_epsilons",
}

__all__ = [
    "AMPLIFIED",
    "EXPECTED_FILES",
    "LAST_VALUES",
    "LEAF_DATASETS",
    "MAX_PATH_CHARS",
    "MAX_SEED",
    "MAX_SHOWN",
    "UNIT_INTERVAL",
    "ClientTimeline",
    "ClientWeights",
    "Components",
    "ConfigError",
    "DatasetMissing",
    "Estimate",
    "KeptPools",
    "ListSink",
    "MetricSpec",
    "ModelFile",
    "RoundRecord",
    "RunConfig",
    "Sink",
    "Summary",
    "SystemSpec",
    "amplification",
    "binary_exponent",
    "build_config",
    "builtin_modules",
    "check_dataset",
    "current",
    "default_parent",
    "epsilon_histogram",
    "estimate",
    "format_bytes",
    "format_flops",
    "governed_threads",
    "inside",
    "install",
    "installed",
    "is_dir",
    "is_file",
    "keep_freed_memory",
    "keep_pools_in",
    "largest",
    "load_data",
    "missing_files",
    "partition_view",
    "remedy",
    "require_files",
    "run_config_for",
    "scaled_mean",
    "scaled_std",
    "section_class",
    "set_path",
    "shown",
    "simulate",
    "std_second_half",
    "summarise",
    "summary_inputs",
    "system_spec",
    "unnamable",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
